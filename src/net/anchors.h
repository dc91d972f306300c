/* anchors.dat, as Bitcoin Core keeps it: the addresses of the block-relay-only outbound
 * peers at a clean shutdown, dialled first at the next start so that a restart does not
 * hand an attacker the chance to replace them (Core's DumpAnchors / ReadAnchors). Format:
 * doc/files.md, "Anchors (anchors.dat)".
 *
 * Thread: none of its own; the net thread calls it at start and at shutdown.
 */
#ifndef BITNODE_NET_ANCHORS_H
#define BITNODE_NET_ANCHORS_H

#include <stddef.h>
#include <stdint.h>

#include "net/addrman.h"

/* Core's MAX_BLOCK_RELAY_ONLY_ANCHORS: at most this many are written and tried. */
#define ANCHORS_MAX 2

/** Appends the anchors.dat image of addrs[0..n) (magic, count, CAddress each in Core's
 *  V2_DISK form, sha256d). A time outside 32 bits is written as its nearest bound. */
void anchors_serialize(struct buf *out, const uint8_t magic[4], const struct addrman_addr *addrs,
                       size_t n);

/** Parses an anchors.dat image as Core's ReadAnchors does.
 *
 *  Returns: 0 with *out (caller frees with free(); NULL when *n_out is 0) and *n_out; an
 *           address Core reads but does not know (an unknown network) comes back with net
 *           0, to be skipped. RC_CORRUPT with err in Core's words for anything else (wrong
 *           magic, end of input, a bad address, a checksum mismatch); *out NULL then.
 */
int anchors_deserialize(struct addrman_addr **out, size_t *n_out, const uint8_t *p, size_t len,
                        const uint8_t magic[4], char *err, size_t err_len);

/** Writes anchors_serialize's image to path atomically (mode 0600).
 *  Returns: 0 or RC_IO with err filled. */
int anchors_save(const char *path, const uint8_t magic[4], const struct addrman_addr *addrs,
                 size_t n, char *err, size_t err_len);

/** Reads path and anchors_deserialize's it, then removes the file whatever it held (Core:
 *  anchors are used once).
 *  Returns: 0 with *out and *n_out as anchors_deserialize; RC_NOT_FOUND (no file), RC_IO,
 *           RC_TOO_LARGE or RC_CORRUPT with err filled and nothing out: the caller goes on
 *           with no anchors, as Core does.
 */
int anchors_load(struct addrman_addr **out, size_t *n_out, const char *path,
                 const uint8_t magic[4], char *err, size_t err_len);

#endif
