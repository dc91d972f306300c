/* Headers pre-synchronisation (headerssync.h). */
#include "net/headerssync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/pow.h"
#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "util/buf.h"
#include "util/random.h"
#include "util/xmalloc.h"

#define MAX_FUTURE_TIME (2 * 60 * 60)

struct headerssync {
    const struct chain_params *p;
    struct headerssync_start start;
    struct u256 min_work;
    int state;
    uint64_t k0, k1; /* the salt of the commitment bits */
    int32_t offset;  /* commitment heights: height % PERIOD == offset */
    uint64_t max_commitments;

    /* The commitment bits, a queue: pushed while pre-syncing, popped while redownloading. */
    uint8_t *bits;
    uint64_t bits_cap, bits_head, bits_len; /* in bits */

    /* Pre-sync: the last header seen. */
    uint8_t last_hash[32];
    uint32_t last_bits;
    int32_t height;
    int64_t last_time;
    struct u256 work;

    /* Redownload. */
    uint8_t rd_last_hash[32];
    uint32_t rd_last_bits;
    int32_t rd_height;
    struct u256 rd_work;
    int process_all;
    uint8_t *buffer; /* held-back headers, a ring of 80-byte records */
    size_t buf_head, buf_len;
};

struct headerssync *headerssync_new(const struct chain_params *p,
                                    const struct headerssync_start *start,
                                    const struct u256 *min_work, int64_t now)
{
    struct headerssync *h = xcalloc(1, sizeof(*h));
    h->p = p;
    h->start = *start;
    h->min_work = *min_work;
    h->state = HSYNC_PRESYNC;
    uint8_t salt[20];
    random_bytes(salt, sizeof(salt));
    memcpy(&h->k0, salt, 8);
    memcpy(&h->k1, salt + 8, 8);
    uint32_t r;
    memcpy(&r, salt + 16, 4);
    h->offset = (int32_t)(r % NET_HSYNC_PERIOD);
    int64_t secs = now - start->mtp + MAX_FUTURE_TIME;
    if (secs < 0) {
        secs = 0;
    }
    h->max_commitments = (uint64_t)secs * 6 / NET_HSYNC_PERIOD;
    memcpy(h->last_hash, start->hash, 32);
    h->last_bits = start->bits;
    h->height = start->height;
    h->work = start->chain_work;
    return h;
}

void headerssync_free(struct headerssync *h)
{
    if (h) {
        free(h->bits);
        free(h->buffer);
        free(h);
    }
}

static int commitment_bit(const struct headerssync *h, const uint8_t hash[32])
{
    return (int)(siphash24_uint256(h->k0, h->k1, hash) & 1);
}

static void push_bit(struct headerssync *h, int bit)
{
    if (h->bits_head + h->bits_len == h->bits_cap * 8) {
        if (h->bits_head >= 8 * 1024) { /* compact: drop what was popped */
            uint64_t from = h->bits_head / 8;
            memmove(h->bits, h->bits + from, (size_t)(h->bits_cap - from));
            h->bits_head -= from * 8;
        } else {
            uint64_t cap = h->bits_cap ? h->bits_cap * 2 : 64;
            h->bits = xrealloc(h->bits, (size_t)cap);
            memset(h->bits + h->bits_cap, 0, (size_t)(cap - h->bits_cap));
            h->bits_cap = cap;
        }
    }
    uint64_t i = h->bits_head + h->bits_len++;
    if (bit) {
        h->bits[i / 8] |= (uint8_t)(1u << (i % 8));
    } else {
        h->bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
    }
}

static int pop_bit(struct headerssync *h, int *bit)
{
    if (h->bits_len == 0) {
        return 0;
    }
    uint64_t i = h->bits_head++;
    h->bits_len--;
    *bit = (h->bits[i / 8] >> (i % 8)) & 1;
    return 1;
}

static int fail(struct headerssync *h, char *err, size_t err_len, const char *why)
{
    h->state = HSYNC_FAILED;
    if (err && err_len) {
        snprintf(err, err_len, "%s", why);
    }
    return HSYNC_MISBEHAVED;
}

static void work_add(struct u256 *w, uint32_t bits)
{
    struct u256 proof;
    pow_block_proof(&proof, bits);
    u256_add(w, w, &proof);
}

/* One header of the pre-sync pass. */
static int presync_one(struct headerssync *h, const uint8_t *raw, char *err, size_t err_len)
{
    uint32_t bits = rd_u32le(raw + 72);
    if (memcmp(raw + 4, h->last_hash, 32) != 0) {
        return fail(h, err, err_len, "non-continuous headers sequence (presync)");
    }
    int32_t next = h->height + 1;
    if (!pow_permitted_transition(next, h->last_bits, bits, h->p)) {
        return fail(h, err, err_len, "invalid difficulty transition (presync)");
    }
    uint8_t hash[32];
    hash_sha256d(hash, raw, 80);
    if (next % NET_HSYNC_PERIOD == h->offset) {
        push_bit(h, commitment_bit(h, hash));
        if (h->bits_len > h->max_commitments) {
            /* More headers than the chain's age allows: the peer is feeding garbage. */
            return fail(h, err, err_len, "exceeded the maximum number of headers (presync)");
        }
    }
    work_add(&h->work, bits);
    h->height = next;
    h->last_bits = bits;
    h->last_time = rd_u32le(raw + 68);
    memcpy(h->last_hash, hash, 32);
    return HSYNC_OK;
}

static void buffer_push(struct headerssync *h, const uint8_t *raw)
{
    if (!h->buffer) {
        h->buffer = xmalloc((size_t)(NET_HSYNC_REDOWNLOAD_BUFFER + 1) * 80);
    }
    size_t cap = NET_HSYNC_REDOWNLOAD_BUFFER + 1;
    memcpy(h->buffer + ((h->buf_head + h->buf_len) % cap) * 80, raw, 80);
    h->buf_len++;
}

static void buffer_pop(struct headerssync *h, uint8_t *out)
{
    size_t cap = NET_HSYNC_REDOWNLOAD_BUFFER + 1;
    memcpy(out, h->buffer + h->buf_head * 80, 80);
    h->buf_head = (h->buf_head + 1) % cap;
    h->buf_len--;
}

static int redownload_one(struct headerssync *h, const uint8_t *raw, char *err, size_t err_len)
{
    uint32_t bits = rd_u32le(raw + 72);
    if (memcmp(raw + 4, h->rd_last_hash, 32) != 0) {
        return fail(h, err, err_len, "non-continuous headers sequence (redownload)");
    }
    int32_t next = h->rd_height + 1;
    if (!pow_permitted_transition(next, h->rd_last_bits, bits, h->p)) {
        return fail(h, err, err_len, "invalid difficulty transition (redownload)");
    }
    uint8_t hash[32];
    hash_sha256d(hash, raw, 80);
    work_add(&h->rd_work, bits);
    if (!h->process_all && u256_cmp(&h->rd_work, &h->min_work) >= 0) {
        h->process_all = 1;
    }
    if (!h->process_all && next % NET_HSYNC_PERIOD == h->offset) {
        int want;
        if (!pop_bit(h, &want)) {
            return fail(h, err, err_len, "redownloaded more headers than pre-synced");
        }
        if (want != commitment_bit(h, hash)) {
            return fail(h, err, err_len, "header commitment mismatch (redownload)");
        }
    }
    buffer_push(h, raw);
    h->rd_height = next;
    h->rd_last_bits = bits;
    memcpy(h->rd_last_hash, hash, 32);
    return HSYNC_OK;
}

int headerssync_process(struct headerssync *h, const uint8_t *raw, size_t n, int full,
                        uint8_t **release, size_t *n_release, int *more, char *err, size_t err_len)
{
    *release = NULL;
    *n_release = 0;
    *more = 0;
    if (h->state == HSYNC_DONE || h->state == HSYNC_FAILED) {
        return HSYNC_OK;
    }
    struct buf out;
    buf_init(&out);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = raw + i * 80;
        int rc;
        if (h->state == HSYNC_PRESYNC) {
            rc = presync_one(h, r, err, err_len);
            if (rc == HSYNC_OK && u256_cmp(&h->work, &h->min_work) >= 0) {
                /* Enough work: start again from the start, storing this time. The rest of
                 * this message is not needed (it comes again). */
                h->state = HSYNC_REDOWNLOAD;
                memcpy(h->rd_last_hash, h->start.hash, 32);
                h->rd_last_bits = h->start.bits;
                h->rd_height = h->start.height;
                h->rd_work = h->start.chain_work;
                *more = 1;
                buf_clear(&out);
                return HSYNC_OK;
            }
        } else {
            rc = redownload_one(h, r, err, err_len);
        }
        if (rc != HSYNC_OK) {
            buf_clear(&out);
            return rc;
        }
        /* Release what the buffer need not hold any more. */
        while (h->buf_len > 0 && (h->buf_len > NET_HSYNC_REDOWNLOAD_BUFFER || h->process_all)) {
            uint8_t one[80];
            buffer_pop(h, one);
            buf_append(&out, one, 80);
        }
    }
    if (h->state == HSYNC_REDOWNLOAD && h->process_all && h->buf_len == 0) {
        h->state = HSYNC_DONE;
        /* The rest of the peer's chain (if full) comes the normal way. */
        *more = full;
    } else if (!full) {
        /* The peer has no more: in pre-sync, a chain without the work; while redownloading,
         * less than it showed before. */
        h->state = HSYNC_FAILED;
        buf_clear(&out);
        return HSYNC_LOW_WORK;
    } else {
        *more = 1;
    }
    *n_release = out.len / 80;
    *release = out.len ? out.data : NULL;
    if (!out.len) {
        buf_clear(&out);
    }
    return HSYNC_OK;
}

size_t headerssync_locator(const struct headerssync *h, uint8_t (**out)[32])
{
    uint8_t(*v)[32] = xmalloc(2 * 32);
    size_t k = 0;
    const uint8_t *last = h->state == HSYNC_PRESYNC ? h->last_hash : h->rd_last_hash;
    memcpy(v[k++], last, 32);
    if (memcmp(last, h->start.hash, 32) != 0) {
        memcpy(v[k++], h->start.hash, 32);
    }
    *out = v;
    return k;
}

int headerssync_state(const struct headerssync *h)
{
    return h->state;
}

int32_t headerssync_presync_height(const struct headerssync *h)
{
    return h->height;
}

int64_t headerssync_presync_time(const struct headerssync *h)
{
    return h->last_time;
}
