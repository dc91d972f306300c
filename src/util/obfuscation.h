/* Bitcoin Core's Obfuscation (util/obfuscation.h): bytes XORed with an 8-byte key, the key
 * cycled by the position of each byte in its file, so that any slice of a file can be
 * turned back on its own (byte at file offset o is XORed with key[o % 8]). Core keeps the
 * key of its block files in blocks/xor.dat (doc/files.md, "The XOR key").
 *
 * The work is done a 64-bit word at a time: the key is kept rotated for each of the eight
 * phases, so a run of bytes costs one load, XOR and store per 8 bytes.
 */
#ifndef BITNODE_UTIL_OBFUSCATION_H
#define BITNODE_UTIL_OBFUSCATION_H

#include <stddef.h>
#include <stdint.h>

#define OBFUSCATION_KEY_SIZE 8

struct obfuscation {
    uint64_t rot[OBFUSCATION_KEY_SIZE]; /* rot[k]: the key as a word starting at key[k] */
    uint8_t key[OBFUSCATION_KEY_SIZE];
    int on;                             /* 0 for a key of zeros: nothing to do */
};

/** Sets o from the 8 key bytes (a key of zeros gives an o that changes nothing). */
void obfuscation_init(struct obfuscation *o, const uint8_t key[OBFUSCATION_KEY_SIZE]);

/** XORs p[0..len) in place, p[0] being the byte at file offset `offset`. Applying it twice
 *  gives the bytes back. Any alignment of p and any offset. */
void obfuscation_apply(const struct obfuscation *o, uint8_t *p, size_t len, uint64_t offset);

/** Like obfuscation_apply, but from src into dst (which may not overlap unless equal). */
void obfuscation_copy(const struct obfuscation *o, uint8_t *dst, const uint8_t *src, size_t len,
                      uint64_t offset);

#endif
