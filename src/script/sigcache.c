/* Signature cache. See sigcache.h. */
#include "script/sigcache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/rand.h>

#include "crypto/hash.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/xmalloc.h"

#define WAYS 4

struct sigcache_set {
    uint8_t entry[WAYS][32];
    uint8_t used; /* bit i: way i holds an entry */
    uint8_t next; /* round-robin victim */
};

struct sigcache {
    pthread_rwlock_t lock;
    struct hash_sha256_ctx salted_ecdsa;   /* midstate after the salt, one per kind so */
    struct hash_sha256_ctx salted_schnorr; /* that an ECDSA and a Schnorr key never meet */
    struct sigcache_set *sets;
    size_t nsets;
    atomic_int filled; /* 1 once anything was inserted (sigcache_empty) */
};

struct sigcache *sigcache_new(size_t max_bytes, const uint8_t *salt32)
{
    struct sigcache *c = xcalloc(1, sizeof(*c));
    uint8_t salt[32];
    if (salt32) {
        memcpy(salt, salt32, 32);
    } else {
        CHECK_ALWAYS(RAND_bytes(salt, sizeof(salt)) == 1);
    }
    /* Different padding after the salt separates the two kinds of entry (as Core does
     * with 'E' and 'S' padding). */
    uint8_t pad[32];
    hash_sha256_init(&c->salted_ecdsa);
    hash_sha256_write(&c->salted_ecdsa, salt, 32);
    memset(pad, 'E', sizeof(pad));
    hash_sha256_write(&c->salted_ecdsa, pad, 32);
    hash_sha256_init(&c->salted_schnorr);
    hash_sha256_write(&c->salted_schnorr, salt, 32);
    memset(pad, 'S', sizeof(pad));
    hash_sha256_write(&c->salted_schnorr, pad, 32);

    c->nsets = max_bytes / sizeof(struct sigcache_set);
    if (c->nsets == 0) {
        c->nsets = 1;
    }
    c->sets = xcalloc(c->nsets, sizeof(struct sigcache_set));
    CHECK_ALWAYS(pthread_rwlock_init(&c->lock, NULL) == 0);
    return c;
}

void sigcache_free(struct sigcache *c)
{
    if (!c) {
        return;
    }
    pthread_rwlock_destroy(&c->lock);
    free(c->sets);
    free(c);
}

void sigcache_entry_ecdsa(const struct sigcache *c, uint8_t entry32[32],
                          const uint8_t sighash32[32], const uint8_t *sig, size_t sig_len,
                          const uint8_t *pubkey, size_t pubkey_len)
{
    struct hash_sha256_ctx h = c->salted_ecdsa;
    uint8_t lens[8];
    /* Lengths keep (sig, pubkey) boundaries unambiguous. */
    wr_u32le(lens, (uint32_t)sig_len);
    wr_u32le(lens + 4, (uint32_t)pubkey_len);
    hash_sha256_write(&h, sighash32, 32);
    hash_sha256_write(&h, lens, 8);
    hash_sha256_write(&h, pubkey, pubkey_len);
    hash_sha256_write(&h, sig, sig_len);
    hash_sha256_final(&h, entry32);
}

void sigcache_entry_schnorr(const struct sigcache *c, uint8_t entry32[32],
                            const uint8_t sighash32[32], const uint8_t sig64[64],
                            const uint8_t pubkey32[32])
{
    struct hash_sha256_ctx h = c->salted_schnorr;
    hash_sha256_write(&h, sighash32, 32);
    hash_sha256_write(&h, pubkey32, 32);
    hash_sha256_write(&h, sig64, 64);
    hash_sha256_final(&h, entry32);
}

static size_t set_index(const struct sigcache *c, const uint8_t entry32[32])
{
    return (size_t)(rd_u64le(entry32) % c->nsets);
}

int sigcache_contains(struct sigcache *c, const uint8_t entry32[32])
{
    int found = 0;
    pthread_rwlock_rdlock(&c->lock);
    const struct sigcache_set *s = &c->sets[set_index(c, entry32)];
    for (int i = 0; i < WAYS; i++) {
        if ((s->used & (1u << i)) && memcmp(s->entry[i], entry32, 32) == 0) {
            found = 1;
            break;
        }
    }
    pthread_rwlock_unlock(&c->lock);
    return found;
}

int sigcache_empty(const struct sigcache *c)
{
    return !atomic_load_explicit(&((struct sigcache *)c)->filled, memory_order_relaxed);
}

void sigcache_insert(struct sigcache *c, const uint8_t entry32[32])
{
    atomic_store_explicit(&c->filled, 1, memory_order_relaxed);
    pthread_rwlock_wrlock(&c->lock);
    struct sigcache_set *s = &c->sets[set_index(c, entry32)];
    int slot = -1;
    for (int i = 0; i < WAYS; i++) {
        if ((s->used & (1u << i)) && memcmp(s->entry[i], entry32, 32) == 0) {
            slot = -2; /* already present */
            break;
        }
        if (slot == -1 && !(s->used & (1u << i))) {
            slot = i;
        }
    }
    if (slot != -2) {
        if (slot == -1) {
            slot = s->next;
            s->next = (uint8_t)((s->next + 1) % WAYS);
        }
        memcpy(s->entry[slot], entry32, 32);
        s->used |= (uint8_t)(1u << slot);
    }
    pthread_rwlock_unlock(&c->lock);
}

size_t sigcache_capacity(const struct sigcache *c)
{
    return c->nsets * WAYS;
}

size_t sigcache_memory(const struct sigcache *c)
{
    return c->nsets * sizeof(struct sigcache_set);
}
