/* charset.h - placeholder until the module lands. */
#ifndef MPSEEK_CHARSET_H
#define MPSEEK_CHARSET_H
#endif
