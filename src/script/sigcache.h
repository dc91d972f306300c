/* A signature cache: remembers (sighash, pubkey, signature) triples that verified, so a
 * transaction checked when it was relayed is not checked again when it is mined.
 *
 * Entries are a salted SHA-256 of the triple (the salt is random per cache, so a peer
 * cannot aim collisions at it). Memory is bounded: a fixed table of 32-byte entries,
 * 4-way set-associative, evicting within a set round-robin. Thread-safe: lookups take a
 * shared lock, inserts an exclusive one.
 */
#ifndef BITNODE_SCRIPT_SIGCACHE_H
#define BITNODE_SCRIPT_SIGCACHE_H

#include <stddef.h>
#include <stdint.h>

struct sigcache;

/** Creates a cache using about max_bytes of memory (at least one set).
 *  salt32 may be NULL: a random salt is drawn from the system. Caller frees. */
struct sigcache *sigcache_new(size_t max_bytes, const uint8_t *salt32);
/** Frees the cache (NULL is a no-op). No other thread may be using it. */
void sigcache_free(struct sigcache *c);

/** The cache key of an ECDSA check (signature without its hash type byte). */
void sigcache_entry_ecdsa(const struct sigcache *c, uint8_t entry32[32],
                          const uint8_t sighash32[32], const uint8_t *sig, size_t sig_len,
                          const uint8_t *pubkey, size_t pubkey_len);
/** The cache key of a Schnorr check (sig is 64 bytes, pubkey 32). */
void sigcache_entry_schnorr(const struct sigcache *c, uint8_t entry32[32],
                            const uint8_t sighash32[32], const uint8_t sig64[64],
                            const uint8_t pubkey32[32]);

/** 1 if entry is in the cache. Thread-safe (shared lock). */
int sigcache_contains(struct sigcache *c, const uint8_t entry32[32]);
/** 1 while nothing was ever inserted: then no lookup can hit, and a checker that does not
 *  insert skips making the key (a block import without a mempool). Thread-safe; an insert
 *  on another thread meanwhile may not be seen yet (a miss, never a false hit). */
int sigcache_empty(const struct sigcache *c);
/** Adds entry (evicting another in its set if full). Thread-safe (exclusive lock). */
void sigcache_insert(struct sigcache *c, const uint8_t entry32[32]);
/** Number of entries the cache can hold. */
size_t sigcache_capacity(const struct sigcache *c);
/** Bytes its table takes (at most -maxsigcachesize). */
size_t sigcache_memory(const struct sigcache *c);

#endif
