/* The block reader thread (readahead.h). Requests are a ring kept in the order asked; the
 * thread reads the first one still queued. An item being read is never moved or freed: the
 * owner waits for it before dropping it. */
#include "validation/readahead.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/log.h"
#include "util/obfuscation.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* A frame longer than this is not a block (a block is at most 4 MB serialized). */
#define MAX_RECORD ((uint32_t)32 << 20)

enum { RA_QUEUED, RA_READING, RA_DONE };
#define READAHEAD_TRASH 8

struct ra_item {
    uint8_t hash[32];
    int file;
    uint32_t pos;
    int state;
    int rc;
    struct block b;
    struct readahead_coins coins;
};

struct readahead {
    char *dir;
    uint8_t magic[4];
    struct obfuscation obf; /* the blk files' XOR key */
    pthread_mutex_t mu; /* a leaf */
    pthread_cond_t work, done;
    pthread_t thread;
    int started, stop;
    struct ra_item q[READAHEAD_DEPTH];
    size_t head, n; /* the ring, in the order asked */
    uint64_t blocks, ns, coin_lookups, coins_found;
    uint64_t wait_ns; /* the taker waiting for a block being read */
    struct coins_db *db;
    const struct coins_cache *cache;
    atomic_int coins_on;
    struct block trash[READAHEAD_TRASH]; /* blocks to free on the reader thread */
    size_t ntrash;
    /* The reader thread's own. */
    int fd, fd_file;
    struct buf raw;
    struct buf val, spk;
    uint8_t (*ids)[32];
    size_t ids_cap;
};

void readahead_coins_init(struct readahead_coins *s)
{
    memset(s, 0, sizeof(*s));
    buf_init(&s->arena);
}

void readahead_coins_clear(struct readahead_coins *s)
{
    free(s->v);
    buf_clear(&s->arena);
    readahead_coins_init(s);
}

static void coins_reset(struct readahead_coins *s)
{
    s->n = 0;
    buf_reset(&s->arena);
}

/* Reads the coins b spends from the store into *out (reader thread). Inputs of outputs the
 * block creates are skipped; a coin the store does not have is left out; a store error
 * ends the reading (the validation thread reads that coin itself and reports). */
static void read_coins(struct readahead *ra, const struct block *b, struct readahead_coins *out,
                       uint64_t *lookups, uint64_t *found)
{
    coins_reset(out);
    out->epoch = coins_db_epoch(ra->db);
    if (b->tx_count < 2) {
        return;
    }
    block_sorted_txids(b, &ra->ids, &ra->ids_cap);
    for (size_t t = 1; t < b->tx_count; t++) {
        for (size_t i = 0; i < b->txs[t].vin_count; i++) {
            const struct outpoint *op = &b->txs[t].vin[i].prevout;
            if ((ra->cache && coins_cache_may_have(ra->cache, op)) ||
                block_creates((const uint8_t(*)[32])ra->ids, b->tx_count, op->txid)) {
                continue;
            }
            struct coin c;
            (*lookups)++;
            int rc = coins_db_read_buf(ra->db, op, &c, &ra->val, &ra->spk);
            if (rc == RC_NOT_FOUND) {
                continue;
            }
            if (rc) {
                goto fix;
            }
            (*found)++;
            if (out->n == out->cap) {
                out->cap = out->cap ? 2 * out->cap : 256;
                out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
            }
            struct readahead_coin *rcn = &out->v[out->n++];
            rcn->op = *op;
            rcn->coin = c;
            /* The arena may move while it grows: the offset now, the pointer at the end. */
            rcn->coin.script_pubkey.data = (uint8_t *)(uintptr_t)out->arena.len;
            buf_append(&out->arena, c.script_pubkey.data, c.script_pubkey.len);
        }
    }
fix:
    for (size_t k = 0; k < out->n; k++) {
        struct bytes *spk = &out->v[k].coin.script_pubkey;
        spk->data = out->arena.data + (uintptr_t)spk->data;
    }
}

static struct ra_item *at(struct readahead *ra, size_t k)
{
    return &ra->q[(ra->head + k) % READAHEAD_DEPTH];
}

static int read_exact(int fd, uint8_t *p, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t r = pread(fd, p, len, off);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return r < 0 ? RC_IO : RC_CORRUPT;
        }
        p += r;
        len -= (size_t)r;
        off += r;
    }
    return RC_OK;
}

/* Reads and parses one block (reader thread). */
static int read_one(struct readahead *ra, int file, uint32_t pos, const uint8_t hash32[32],
                    struct block *b)
{
    uint8_t frame[8];
    char err[128];
    int rc;
    if (ra->fd_file != file) {
        char path[4200];
        if (ra->fd >= 0) {
            close(ra->fd);
        }
        ra->fd_file = -1;
        snprintf(path, sizeof(path), "%s/blk%05d.dat", ra->dir, file);
        ra->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (ra->fd < 0) {
            return RC_IO;
        }
        ra->fd_file = file;
    }
    if (pos < 8 || (rc = read_exact(ra->fd, frame, 8, (off_t)pos - 8))) {
        return pos < 8 ? RC_CORRUPT : rc;
    }
    obfuscation_apply(&ra->obf, frame, 8, pos - 8);
    uint32_t len = rd_u32le(frame + 4);
    if (memcmp(frame, ra->magic, 4) != 0 || len > MAX_RECORD) {
        return RC_CORRUPT;
    }
    buf_reset(&ra->raw);
    buf_reserve(&ra->raw, len);
    if ((rc = read_exact(ra->fd, ra->raw.data, len, (off_t)pos))) {
        return rc;
    }
    obfuscation_apply(&ra->obf, ra->raw.data, len, pos);
    ra->raw.len = len;
    if (block_parse(b, ra->raw.data, len, err, sizeof(err)) != RC_OK) {
        return RC_CORRUPT;
    }
    if (memcmp(b->hash, hash32, 32) != 0) {
        block_clear(b);
        return RC_CORRUPT;
    }
    return RC_OK;
}

static void *reader_main(void *arg)
{
    struct readahead *ra = arg;
    log_thread_rename("readahead");
    pthread_mutex_lock(&ra->mu);
    while (!ra->stop) {
        if (ra->ntrash > 0) {
            /* Freed by the thread that allocated them: glibc frees a chunk fastest in its
             * own arena, and the validation thread has better things to do. */
            struct block b = ra->trash[--ra->ntrash];
            pthread_mutex_unlock(&ra->mu);
            block_clear(&b);
            pthread_mutex_lock(&ra->mu);
            continue;
        }
        struct ra_item *it = NULL;
        for (size_t k = 0; k < ra->n; k++) {
            if (at(ra, k)->state == RA_QUEUED) {
                it = at(ra, k);
                break;
            }
        }
        if (!it) {
            /* Idle: the store's mapped pages, which compactions touch meanwhile, leave the
             * resident set every 100 ms (kv_release_mapped). */
            struct timespec ts = time_deadline(CLOCK_MONOTONIC, 100000000ull);
            if (pthread_cond_timedwait(&ra->work, &ra->mu, &ts) == ETIMEDOUT) {
                pthread_mutex_unlock(&ra->mu);
                kv_release_mapped(KV_MAPPED_RESIDENT_MAX);
                pthread_mutex_lock(&ra->mu);
            }
            continue;
        }
        it->state = RA_READING;
        int file = it->file;
        uint32_t pos = it->pos;
        uint8_t hash[32];
        memcpy(hash, it->hash, 32);
        pthread_mutex_unlock(&ra->mu);

        struct block b;
        uint64_t t0 = time_mono_ns(), lookups = 0, found = 0;
        block_init(&b);
        int rc = read_one(ra, file, pos, hash, &b);
        /* The item's coins set is ours while it is being read (the owner waits for it). */
        coins_reset(&it->coins);
        if (rc == RC_OK && ra->db && atomic_load(&ra->coins_on)) {
            read_coins(ra, &b, &it->coins, &lookups, &found);
            kv_release_mapped(KV_MAPPED_RESIDENT_MAX);
        }
        uint64_t dt = time_mono_ns() - t0;

        pthread_mutex_lock(&ra->mu);
        it->rc = rc;
        it->b = b;
        it->state = RA_DONE;
        ra->blocks++;
        ra->ns += dt;
        ra->coin_lookups += lookups;
        ra->coins_found += found;
        pthread_cond_broadcast(&ra->done);
    }
    pthread_mutex_unlock(&ra->mu);
    if (ra->fd >= 0) {
        close(ra->fd);
        ra->fd = -1;
    }
    return NULL;
}

void readahead_set_obfuscation(struct readahead *ra, const struct obfuscation *obf)
{
    ra->obf = *obf;
}

struct readahead *readahead_new(const char *dir, const uint8_t magic4[4])
{
    struct readahead *ra = xcalloc(1, sizeof(*ra));
    ra->dir = xstrdup(dir);
    memcpy(ra->magic, magic4, 4);
    pthread_mutex_init(&ra->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ra->work, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&ra->done, NULL);
    ra->fd = -1;
    ra->fd_file = -1;
    buf_init(&ra->raw);
    buf_init(&ra->val);
    buf_init(&ra->spk);
    atomic_init(&ra->coins_on, 0);
    for (size_t i = 0; i < READAHEAD_DEPTH; i++) {
        block_init(&ra->q[i].b);
        readahead_coins_init(&ra->q[i].coins);
    }
    return ra;
}

void readahead_set_coins(struct readahead *ra, struct coins_db *db,
                         const struct coins_cache *cache)
{
    pthread_mutex_lock(&ra->mu);
    ra->db = db;
    ra->cache = cache;
    pthread_mutex_unlock(&ra->mu);
}

void readahead_coins_on(struct readahead *ra, int on)
{
    atomic_store(&ra->coins_on, on);
}

/* Pops the first item (not being read; mu held). */
static void pop_head(struct readahead *ra)
{
    struct ra_item *it = at(ra, 0);
    block_clear(&it->b);
    block_init(&it->b);
    it->state = RA_QUEUED;
    ra->head = (ra->head + 1) % READAHEAD_DEPTH;
    ra->n--;
}

/* Waits until no item is being read (mu held). */
static void wait_idle(struct readahead *ra)
{
    for (;;) {
        int reading = 0;
        for (size_t k = 0; k < ra->n; k++) {
            reading |= at(ra, k)->state == RA_READING;
        }
        if (!reading) {
            return;
        }
        pthread_cond_wait(&ra->done, &ra->mu);
    }
}

void readahead_reset(struct readahead *ra)
{
    pthread_mutex_lock(&ra->mu);
    wait_idle(ra);
    while (ra->n > 0) {
        pop_head(ra);
    }
    pthread_mutex_unlock(&ra->mu);
}

void readahead_free(struct readahead *ra)
{
    if (!ra) {
        return;
    }
    if (ra->started) {
        pthread_mutex_lock(&ra->mu);
        ra->stop = 1;
        pthread_cond_signal(&ra->work);
        pthread_mutex_unlock(&ra->mu);
        pthread_join(ra->thread, NULL);
    }
    while (ra->n > 0) {
        pop_head(ra);
    }
    while (ra->ntrash > 0) {
        block_clear(&ra->trash[--ra->ntrash]);
    }
    if (ra->fd >= 0) {
        close(ra->fd);
    }
    buf_clear(&ra->raw);
    buf_clear(&ra->val);
    buf_clear(&ra->spk);
    free(ra->ids);
    for (size_t i = 0; i < READAHEAD_DEPTH; i++) {
        readahead_coins_clear(&ra->q[i].coins);
    }
    pthread_cond_destroy(&ra->work);
    pthread_cond_destroy(&ra->done);
    pthread_mutex_destroy(&ra->mu);
    free(ra->dir);
    free(ra);
}

int readahead_want(struct readahead *ra, const uint8_t hash32[32], int file, uint32_t pos)
{
    int ok = 1;
    pthread_mutex_lock(&ra->mu);
    for (size_t k = 0; k < ra->n; k++) {
        if (memcmp(at(ra, k)->hash, hash32, 32) == 0) {
            goto out; /* already asked for */
        }
    }
    if (ra->n == READAHEAD_DEPTH) {
        ok = 0;
        goto out;
    }
    if (!ra->started) {
        if (pthread_create(&ra->thread, NULL, reader_main, ra) != 0) {
            ok = 0; /* no thread: the caller reads blocks itself */
            goto out;
        }
        ra->started = 1;
    }
    struct ra_item *it = at(ra, ra->n++);
    memcpy(it->hash, hash32, 32);
    it->file = file;
    it->pos = pos;
    it->state = RA_QUEUED;
    it->rc = RC_OK;
    block_init(&it->b);
    pthread_cond_signal(&ra->work);
out:
    pthread_mutex_unlock(&ra->mu);
    return ok;
}

int readahead_take(struct readahead *ra, const uint8_t hash32[32], struct block *b,
                   struct readahead_coins *coins)
{
    if (coins) {
        coins_reset(coins);
    }
    pthread_mutex_lock(&ra->mu);
    size_t k = 0;
    while (k < ra->n && memcmp(at(ra, k)->hash, hash32, 32) != 0) {
        k++;
    }
    if (k == ra->n) {
        wait_idle(ra);
        while (ra->n > 0) {
            pop_head(ra);
        }
        pthread_mutex_unlock(&ra->mu);
        return RC_NOT_FOUND;
    }
    /* Those before it were read in vain (the reader reads in order: none is queued still
     * behind one being read, so waiting for the one asked for waits for them too). */
    if (at(ra, k)->state != RA_DONE) {
        uint64_t t0 = time_mono_ns();
        while (at(ra, k)->state != RA_DONE) {
            pthread_cond_wait(&ra->done, &ra->mu);
        }
        ra->wait_ns += time_mono_ns() - t0;
    }
    for (; k > 0; k--) {
        pop_head(ra);
    }
    struct ra_item *it = at(ra, 0);
    int rc = it->rc;
    if (rc == RC_OK) {
        *b = it->b;
        block_init(&it->b);
        if (coins) {
            /* Swapped: the item keeps the caller's old buffers for its next block. */
            struct readahead_coins t = *coins;
            *coins = it->coins;
            it->coins = t;
        }
    }
    pop_head(ra);
    pthread_mutex_unlock(&ra->mu);
    return rc;
}

void readahead_counters(const struct readahead *ra, uint64_t *blocks, uint64_t *ns)
{
    pthread_mutex_lock((pthread_mutex_t *)&ra->mu);
    *blocks = ra->blocks;
    *ns = ra->ns;
    pthread_mutex_unlock((pthread_mutex_t *)&ra->mu);
}

void readahead_coin_counters(const struct readahead *ra, uint64_t *lookups, uint64_t *found,
                             uint64_t *wait_ns)
{
    pthread_mutex_lock((pthread_mutex_t *)&ra->mu);
    *wait_ns = ra->wait_ns;
    *lookups = ra->coin_lookups;
    *found = ra->coins_found;
    pthread_mutex_unlock((pthread_mutex_t *)&ra->mu);
}

void readahead_dispose(struct readahead *ra, struct block *b)
{
    pthread_mutex_lock(&ra->mu);
    if (ra->started && !ra->stop && ra->ntrash < READAHEAD_TRASH) {
        ra->trash[ra->ntrash++] = *b;
        block_init(b);
        pthread_cond_signal(&ra->work);
    }
    pthread_mutex_unlock(&ra->mu);
    block_clear(b); /* not taken: freed here */
}
