/* url.h - placeholder until the module lands. */
#ifndef MPSEEK_URL_H
#define MPSEEK_URL_H
#endif
