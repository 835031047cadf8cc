/* le.h - little-endian packing of fixed-width integers and doubles, for
 * every on-disk and on-wire format (delta logs, CompactStorage, ranks,
 * citations, the merge's runs, robots blobs): explicit bytes, no struct
 * dumps, the same on any host.  Inline: the index readers call these in
 * their inner loops.
 */
#ifndef MPSEEK_LE_H
#define MPSEEK_LE_H

#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(double) == 8, "doubles are IEEE-754 binary64");

static inline void le_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void le_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void le_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t le_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t le_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le_get64(const unsigned char *p)
{
	return (uint64_t)le_get32(p) | (uint64_t)le_get32(p + 4) << 32;
}

/* A double as its IEEE-754 bits, little-endian. */
static inline void le_putd(unsigned char *p, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	le_put64(p, u);
}

static inline double le_getd(const unsigned char *p)
{
	uint64_t u = le_get64(p);
	double v;

	memcpy(&v, &u, 8);
	return v;
}

#endif
