/* Bitcoin Core's serialization of addresses on disk, shared by peers.dat (addrman_file.c)
 * and anchors.dat (anchors.c): a reader that fails as Core's streams do (the first failure's
 * words stick, as the exception Core's loaders catch), CNetAddr in its two encodings, and
 * CAddress in its disk format (a version word, the time, the services, the address). The
 * bytes are in doc/files.md, "Peer addresses (peers.dat)" and "Anchors (anchors.dat)".
 *
 * Thread: none of its own; pure functions over caller's buffers.
 */
#ifndef BITNODE_NET_ADDRFILE_H
#define BITNODE_NET_ADDRFILE_H

#include <stddef.h>
#include <stdint.h>

#include "net/netaddr.h"
#include "util/buf.h"

/* The words Core's std::ios_base::failure adds to its message (libstdc++'s what()). */
#define ADDRFILE_IOS_SUFFIX ": iostream error"
/* CAddress's nTime when it is not known (Core's TIME_INIT). */
#define ADDRFILE_TIME_INIT 100000000

/* A read cursor over p[0..len). rc is 0 until the first failure, then RC_CORRUPT (or what
 * addrfile_fail was given) with err holding Core's words; every read after it fails too. */
struct addrfile_reader {
    const uint8_t *p;
    size_t len, pos;
    int rc;
    char err[256];
};

/* A CAddress as read: valid is 0 when Core reads an address it does not know (an unknown
 * BIP155 network, an embedded IPv4 or Tor v2 in a BIP155 IPv6 field, a Tor v2 address in a
 * legacy field): Core keeps reading past it and drops the entry. */
struct addrfile_caddr {
    struct net_addr addr;
    uint64_t services;
    uint32_t time;
    int valid;
};

void addrfile_reader_init(struct addrfile_reader *r, const uint8_t *p, size_t len);
/** Records a failure (only the first counts) and returns r->rc. */
int addrfile_fail(struct addrfile_reader *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Reads n bytes into out (NULL: skips them). At the end of the input fails with Core's
 *  AutoFile words, "AutoFile::read: end of file: iostream error". Returns 0 or r->rc. */
int addrfile_read(struct addrfile_reader *r, void *out, size_t n);
int addrfile_read_u8(struct addrfile_reader *r, uint8_t *out);
int addrfile_read_u32le(struct addrfile_reader *r, uint32_t *out);
int addrfile_read_i32le(struct addrfile_reader *r, int32_t *out);
int addrfile_read_i64le(struct addrfile_reader *r, int64_t *out);
/** Core's ReadCompactSize: non-canonical forms fail, and with range_check a value over
 *  MAX_SIZE (0x02000000). */
int addrfile_read_compact(struct addrfile_reader *r, uint64_t *out, int range_check);

/** Reads a CNetAddr (no port) in BIP155 form (v2) or as 16 legacy bytes. *valid as in
 *  struct addrfile_caddr; an internal name (Core's fd6b:88c0:8724::/48) reads as invalid
 *  here, as bitnode keeps none. A known network with the wrong length, or a length over
 *  512, fails with Core's words. */
int addrfile_read_netaddr(struct addrfile_reader *r, struct net_addr *out, int *valid, int v2);
/** Reads a CAddress in Core's disk format; v2: the stream allows BIP155 (V2_DISK), in which
 *  each address's own version word still chooses. */
int addrfile_read_caddr(struct addrfile_reader *r, struct addrfile_caddr *out, int v2);

/** Appends a in BIP155 form without the port; net 0 (unknown) as Core's empty CNetAddr
 *  (IPv6 ::). */
void addrfile_put_netaddr(struct buf *out, const struct net_addr *a);
/** Appends a CAddress in Core's V2_DISK format. */
void addrfile_put_caddr(struct buf *out, const struct net_addr *a, uint64_t services,
                        uint32_t time);

#endif
