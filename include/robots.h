/* robots.h - placeholder until the module lands. */
#ifndef MPSEEK_ROBOTS_H
#define MPSEEK_ROBOTS_H
#endif
