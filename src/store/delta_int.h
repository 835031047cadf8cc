/* delta_int.h - what src/store/delta.c (the writer, the listing) and
 * src/store/delta_read.c (the reader) share: the byte layout of the delta
 * log (doc/FORMATS.md, "Delta log").  Not for use outside those two.
 */
#ifndef MPSEEK_DELTA_INT_H
#define MPSEEK_DELTA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "binfile.h"
#include "caps.h"
#include "delta.h"

/* File header: magic[8] version u32, rank u32, created u64, crc u32.
 * Version 2 writes a word's positions as LEB128 numbers (the first, then
 * the gaps) of tokenize.h's 32-bit values; version 1 wrote them as u16
 * (section << 14 | position) and is still read, converted, so that logs a
 * crawl left before an upgrade are merged (doc/FORMATS.md, "Delta log").
 * Version 3 adds TEXT records (a build that reads only 1 and 2 refuses the
 * file by its version rather than calling a TEXT record corrupt). */
#define HDR_SIZE 28
#define FORMAT_VERSION 3
#define FORMAT_V2 2
#define FORMAT_V1_POS16 1
#define VERSION_KNOWN(v) ((v) >= FORMAT_V1_POS16 && (v) <= FORMAT_VERSION)
#define VARINT_MAX 5 /* bytes of a LEB128 u32 */
static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'D', 'L', 'T', 0, 1 };
/* Record frame: payload length u32, crc32(type + payload) u32, type u8. */
#define FRAME 9
/* Internal record type: "bytes [0, X) of this file were fdatasync'ed",
 * payload X u64 and the header crc u32 (which ties the record to this
 * file: stale blocks of another log in a torn tail cannot vouch for it). */
#define T_COMMIT 6
#define COMMIT_PAYLOAD 12
#define COMMIT_REC (FRAME + COMMIT_PAYLOAD)
#define DOC_FIXED 20 /* url_id, site_id, time, n_words */

/* Buffered bytes that trigger a write(2) without a sync: bounds the
 * writer's memory between two delta_sync() calls. */
#define FLUSH_AT (1u << 20)
/* Read window of the file reader; grows to one record when needed. */
#define WINDOW (1u << 20)

_Static_assert(sizeof(MAGIC) == 8, "magic is 8 bytes");
_Static_assert(HDR_SIZE == 8 + 4 + 4 + 8 + 4, "header layout");
_Static_assert(FRAME == 4 + 4 + 1, "frame layout");
_Static_assert(DOC_FIXED == 4 + 4 + 8 + 4, "DOC fixed fields");
_Static_assert(MAX_WORD_LEN <= 255, "word length is stored in one byte");
_Static_assert(MAX_WORD_LEN < FLUSH_AT, "a word fits a flush");
_Static_assert(DELTA_MAX_PAYLOAD <= UINT32_MAX - FRAME, "record length fits u32");
_Static_assert((uint64_t)DOC_FIXED + (uint64_t)DELTA_MAX_DOC_WORDS * (1 + MAX_WORD_LEN + 2) +
		       (uint64_t)DELTA_MAX_DOC_POSITIONS * VARINT_MAX <= DELTA_MAX_PAYLOAD,
	       "the largest DOC the caps allow fits one record");
_Static_assert(DELTA_MAX_WORD_POSITIONS <= UINT16_MAX, "position count is a u16");

static inline uint32_t crc(const unsigned char *p, size_t n)
{
	return binfile_crc(p, n);
}

#endif
