/* tokenize.h - placeholder until the module lands. */
#ifndef MPSEEK_TOKENIZE_H
#define MPSEEK_TOKENIZE_H
#endif
