/* The address manager's insides, shared by addrman.c (the tables and what changes them)
 * and addrman_file.c (peers.dat). Nothing outside those two files includes this.
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
    uint8_t key[32];
    uint64_t kb[2]; /* key bytes 0..15: bucket choice */
    uint64_t kp[2]; /* key bytes 16..31: slot choice and the lookup map */

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
/** 1 for a source address addrman keeps: well formed, or net 0 and len 0 (unknown). */
int addrman_source_well_formed(const struct net_addr *a);
/** Adds an entry read from a file: fields' address, source, services, times, attempts and
 *  in_tried; in tried at its own slot (buckets[0] must be its tried bucket), or in new in
 *  buckets[0..n_buckets). The caller has checked that the address is acceptable and new to
 *  am and that every slot is free; a violation aborts (a bug). */
void addrman_insert_checked(struct addrman *am, const struct addrman_entry *fields,
                            const uint16_t *buckets, int n_buckets);

#endif
