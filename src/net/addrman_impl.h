/* The address manager's insides, shared by addrman.c (the tables and what changes them),
 * addrman_file.c (peers.dat in Core's format) and addrman_file_legacy.c (bitnode's former
 * format, still read). Nothing outside those files (and the unit tests) includes this.
 */
#ifndef BITNODE_NET_ADDRMAN_IMPL_H
#define BITNODE_NET_ADDRMAN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "net/addrman.h"
#include "net/netaddr.h"

#define NO_ID (-1)
#define ADDRMAN_TIME_MAX ((int64_t)1 << 40) /* times past this (year 36812) are corruption */

struct addrman_entry {
    struct net_addr addr;
    struct net_addr source; /* net 0, len 0: unknown */
    uint64_t services;
    int64_t time;
    int64_t last_try;
    int64_t last_success;
    int64_t last_count_attempt; /* memory only, as in Core */
    int32_t attempts;
    int32_t random_pos; /* index in random[]; -1 while the id is free */
    uint16_t new_buckets[ADDRMAN_NEW_BUCKETS_PER_ADDRESS]; /* ascending, ref_count used */
    uint8_t ref_count;
    uint8_t in_tried;
    uint8_t network; /* net_addr_network(addr), cached */
};

/* xoshiro256** (Blackman and Vigna): small, fast, and good enough for bucket and slot
 * choices; the secret that matters is the bucket key, which never comes from it in
 * production. */
struct addrman_rng {
    uint64_t s[4];
};

struct addrman {
    struct addrman_rng rng;
    uint8_t key[32]; /* Core's nKey: buckets and slots (as Core hashes them) */
    uint64_t kp[2];  /* key bytes 16..31: the lookup map */

    struct addrman_entry *entries; /* [0, entries_len) handed out, some free */
    size_t entries_len, entries_cap;
    int32_t *free_ids;
    size_t n_free, free_cap;
    int32_t *random; /* every live id */
    size_t n_random, random_cap;
    int32_t *map; /* open addressing, map_cap a power of two, NO_ID when empty */
    size_t map_cap, map_used;

    size_t n_new, n_tried;
    size_t count_new[NETWORK_COUNT], count_tried[NETWORK_COUNT];
    int64_t last_good; /* memory only; starts at 1 so that "never" is older */

    int32_t new_table[ADDRMAN_NEW_BUCKET_COUNT][ADDRMAN_BUCKET_SIZE];
    int32_t tried_table[ADDRMAN_TRIED_BUCKET_COUNT][ADDRMAN_BUCKET_SIZE];
};

/** An empty state under key, with its PRNG unseeded (the loader's scratch state).
 *  Free with addrman_state_free_contents and free(). */
struct addrman *addrman_state_new(const uint8_t key[32]);
/** Frees what am points to, not am. */
void addrman_state_free_contents(struct addrman *am);
/* Writes the message into err (if any) and returns RC_CORRUPT: the loader's and the
 * consistency check's failures. */
int addrman_corrupt(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** The id of addr's entry, or NO_ID. */
int32_t addrman_find_id(const struct addrman *am, const struct net_addr *addr);
/** Core's GetTriedBucket and GetBucketPosition under am's key. */
int addrman_tried_bucket(const struct addrman *am, const struct net_addr *a);
int addrman_bucket_position(const struct addrman *am, int is_new, int bucket,
                            const struct net_addr *a);
/** Core's GetNewBucket under am's key: the new bucket of a heard from src (net 0: unknown). */
int addrman_new_bucket(const struct addrman *am, const struct net_addr *a,
                       const struct net_addr *src);
/** Replaces am's entries and key with st's, keeping am's PRNG; frees st (its contents pass
 *  to am). */
void addrman_state_adopt(struct addrman *am, struct addrman *st);
/** 1 for a source address addrman keeps: well formed, or net 0 and len 0 (unknown). */
int addrman_source_well_formed(const struct net_addr *a);
/** Adds an entry read from a file: fields' address, source, services, times, attempts and
 *  in_tried; in tried at its own slot (buckets[0] must be its tried bucket), or in new in
 *  buckets[0..n_buckets). The caller has checked that the address is acceptable and new to
 *  am and that every slot is free; a violation aborts (a bug). */
void addrman_insert_checked(struct addrman *am, const struct addrman_entry *fields,
                            const uint16_t *buckets, int n_buckets);

/* addrman_file_legacy.c: bitnode's former peers.dat (doc/files.md, "bitnode's former
 * peers.dat"): magic, u32 version 1, key, counts, entries with their buckets, sha256d. */

/** Appends am in the former format (tests make such files with it). */
void addrman_legacy_serialize(const struct addrman *am, struct buf *out, const uint8_t magic[4]);
/** Reads a former-format image as addrman_deserialize reads Core's: 0 with am replaced;
 *  RC_INVALID for a version other than 1; RC_CORRUPT with err naming the field, entry and
 *  offset. On failure am is unchanged. */
int addrman_legacy_deserialize(struct addrman *am, const uint8_t *p, size_t len,
                               const uint8_t magic[4], char *err, size_t err_len);

#endif
