/* banned.h - functions that invite overflows or hide errors (after git's banned.h).
 * Included last by every source file through util.h. Use snprintf, buf_*, strtol. */
#ifndef MPSEEK_BANNED_H
#define MPSEEK_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_mpseek

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef gets
#define gets(x) BANNED(gets)

#endif
