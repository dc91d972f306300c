/* Bitcoin's integer encodings: CompactSize (the wire and block format) and Bitcoin Core's
 * VARINT (the MSB-base-128 form with the +1 offset, used in its databases and undo files).
 * Formats: doc/files.md, "Integer encodings".
 */
#ifndef BITNODE_PRIMITIVES_SERIALIZE_H
#define BITNODE_PRIMITIVES_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Bitcoin Core's MAX_SIZE: no CompactSize that is a length or count may exceed it. */
#define SER_MAX_SIZE 0x02000000u

/** Appends v as a CompactSize (1, 3, 5 or 9 bytes, always the shortest form). */
void ser_put_compact(struct buf *b, uint64_t v);
/** Number of bytes ser_put_compact writes for v. */
size_t ser_compact_len(uint64_t v);
/** Reads a CompactSize. Returns 0; RC_TRUNCATED; RC_NONCANONICAL if a shorter encoding
 *  existed; RC_TOO_LARGE if the value exceeds SER_MAX_SIZE (Core's range check, applied to
 *  every size and count it reads). The failure is recorded in r naming what. */
int ser_get_compact(struct reader *r, uint64_t *out, const char *what);
/** Appends a CompactSize length and then the n bytes of p. */
void ser_put_varbytes(struct buf *b, const uint8_t *p, size_t n);
/** Reads a CompactSize length and borrows that many bytes from r's input. */
int ser_get_varbytes(struct reader *r, const uint8_t **p, size_t *n, const char *what);

/** Writes v in Core's VARINT encoding into out (at most 10 bytes); returns the length. */
size_t ser_varint_encode(uint8_t out[10], uint64_t v);
/** Appends v in Core's VARINT encoding (unsigned, "NONNEGATIVE_SIGNED" and default modes
 *  share this encoding for non-negative values). */
void ser_put_varint(struct buf *b, uint64_t v);
/** Reads a VARINT. Returns 0, RC_TRUNCATED, or RC_TOO_LARGE when it overflows 64 bits (Core
 *  throws "ReadVarInt(): size too large"). */
int ser_get_varint(struct reader *r, uint64_t *out, const char *what);

#endif
