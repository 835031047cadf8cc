/* html.h - placeholder until the module lands. */
#ifndef MPSEEK_HTML_H
#define MPSEEK_HTML_H
#endif
