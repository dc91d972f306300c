/* BIP37's partial merkle tree (merkleblock.h): the depth-first walk that builds it and the
 * one that checks it, as Core's CPartialMerkleTree. */
#include "consensus/merkleblock.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

void partial_merkle_init(struct partial_merkle *pm)
{
    memset(pm, 0, sizeof(*pm));
}

void partial_merkle_clear(struct partial_merkle *pm)
{
    free(pm->hashes);
    free(pm->bits);
    partial_merkle_init(pm);
}

/* The number of nodes at height (0: the txids) of a tree over n_tx leaves. */
static uint32_t tree_width(uint32_t n_tx, int height)
{
    return (uint32_t)(((uint64_t)n_tx + (1ull << height) - 1) >> height);
}

static int tree_height(uint32_t n_tx)
{
    int h = 0;
    while (tree_width(n_tx, h) > 1) {
        h++;
    }
    return h;
}

/* The hash of the node at (height, pos): a txid at height 0; an odd level's last node is
 * paired with itself. */
static void calc_hash(uint8_t out[32], int height, uint32_t pos, const uint8_t (*txids)[32],
                      uint32_t n_tx)
{
    if (height == 0) {
        memcpy(out, txids[pos], 32);
        return;
    }
    uint8_t left[32], right[32];
    calc_hash(left, height - 1, pos * 2, txids, n_tx);
    if (pos * 2 + 1 < tree_width(n_tx, height - 1)) {
        calc_hash(right, height - 1, pos * 2 + 1, txids, n_tx);
    } else {
        memcpy(right, left, 32);
    }
    hash_sha256d_64(out, left, right);
}

static void push_bit(struct partial_merkle *pm, size_t *cap, uint8_t bit)
{
    if (pm->n_bits == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        pm->bits = xrealloc(pm->bits, *cap);
    }
    pm->bits[pm->n_bits++] = bit;
}

struct build {
    struct partial_merkle *pm;
    const uint8_t (*txids)[32];
    const uint8_t *match;
    size_t cap_bits, cap_hashes;
};

/* Core's TraverseAndBuild: a flag bit per node visited (1: an ancestor of a match); the hash
 * of a leaf or of a node with no match below, whose subtree is not descended into. */
static void build_node(struct build *b, int height, uint32_t pos)
{
    struct partial_merkle *pm = b->pm;
    uint8_t parent_of_match = 0;
    for (uint64_t p = (uint64_t)pos << height; p < ((uint64_t)pos + 1) << height && p < pm->n_tx;
         p++) {
        parent_of_match |= b->match[p] != 0;
    }
    push_bit(pm, &b->cap_bits, parent_of_match);
    if (height == 0 || !parent_of_match) {
        if (pm->n_hashes == b->cap_hashes) {
            b->cap_hashes = b->cap_hashes ? b->cap_hashes * 2 : 16;
            pm->hashes = xrealloc(pm->hashes, b->cap_hashes * 32);
        }
        calc_hash(pm->hashes[pm->n_hashes++], height, pos, b->txids, pm->n_tx);
        return;
    }
    build_node(b, height - 1, pos * 2);
    if (pos * 2 + 1 < tree_width(pm->n_tx, height - 1)) {
        build_node(b, height - 1, pos * 2 + 1);
    }
}

void partial_merkle_build(struct partial_merkle *pm, const uint8_t (*txids)[32],
                          const uint8_t *match, size_t n)
{
    CHECK_ALWAYS(n >= 1 && n <= UINT32_MAX);
    partial_merkle_clear(pm);
    pm->n_tx = (uint32_t)n;
    struct build b = {.pm = pm, .txids = txids, .match = match};
    build_node(&b, tree_height(pm->n_tx), 0);
}

void partial_merkle_serialize(const struct partial_merkle *pm, struct buf *out)
{
    buf_put_u32le(out, pm->n_tx);
    ser_put_compact(out, pm->n_hashes);
    for (size_t i = 0; i < pm->n_hashes; i++) {
        buf_append(out, pm->hashes[i], 32);
    }
    size_t nbytes = (pm->n_bits + 7) / 8;
    ser_put_compact(out, nbytes);
    size_t at = out->len;
    buf_append_fill(out, 0, nbytes);
    for (size_t i = 0; i < pm->n_bits; i++) {
        out->data[at + i / 8] |= (uint8_t)(pm->bits[i] << (i % 8));
    }
}

int partial_merkle_parse(struct partial_merkle *pm, struct reader *r)
{
    partial_merkle_clear(pm);
    uint64_t n_hashes;
    const uint8_t *bytes;
    size_t nbytes;
    int rc = reader_u32le(r, &pm->n_tx, "partial merkle tree transaction count");
    if (rc == RC_OK) {
        rc = ser_get_compact(r, &n_hashes, "partial merkle tree hash count");
    }
    if (rc == RC_OK && n_hashes > reader_left(r) / 32) {
        rc = reader_fail(r, RC_TRUNCATED, "partial merkle tree hashes");
    }
    if (rc == RC_OK) {
        pm->n_hashes = (size_t)n_hashes;
        pm->hashes = xmalloc(pm->n_hashes ? pm->n_hashes * 32 : 1);
        rc = reader_bytes(r, pm->hashes, pm->n_hashes * 32, "partial merkle tree hashes");
    }
    if (rc == RC_OK) {
        rc = ser_get_varbytes(r, &bytes, &nbytes, "partial merkle tree flags");
    }
    if (rc != RC_OK) {
        partial_merkle_clear(pm);
        return rc;
    }
    pm->n_bits = nbytes * 8;
    pm->bits = xmalloc(pm->n_bits ? pm->n_bits : 1);
    for (size_t i = 0; i < pm->n_bits; i++) {
        pm->bits[i] = (bytes[i / 8] >> (i % 8)) & 1;
    }
    return RC_OK;
}

struct extract {
    const struct partial_merkle *pm;
    size_t bits_used, hashes_used;
    int bad;
    uint8_t (*matches)[32];
    uint32_t *index;
    size_t n, cap;
};

/* Core's TraverseAndExtract: the node's hash from the bits and hashes consumed in order;
 * the leaves flagged are the matches. Sets x->bad on running out or on identical
 * siblings (a duplicated subtree would prove a transaction twice). */
static void extract_node(struct extract *x, int height, uint32_t pos, uint8_t out[32])
{
    const struct partial_merkle *pm = x->pm;
    memset(out, 0, 32);
    if (x->bits_used >= pm->n_bits) {
        x->bad = 1;
        return;
    }
    uint8_t parent_of_match = pm->bits[x->bits_used++];
    if (height == 0 || !parent_of_match) {
        if (x->hashes_used >= pm->n_hashes) {
            x->bad = 1;
            return;
        }
        memcpy(out, pm->hashes[x->hashes_used++], 32);
        if (height == 0 && parent_of_match) {
            if (x->n == x->cap) {
                x->cap = x->cap ? x->cap * 2 : 8;
                x->matches = xrealloc(x->matches, x->cap * 32);
                x->index = xrealloc(x->index, x->cap * sizeof(*x->index));
            }
            memcpy(x->matches[x->n], out, 32);
            x->index[x->n++] = pos;
        }
        return;
    }
    uint8_t left[32], right[32];
    extract_node(x, height - 1, pos * 2, left);
    if (pos * 2 + 1 < tree_width(pm->n_tx, height - 1)) {
        extract_node(x, height - 1, pos * 2 + 1, right);
        if (memcmp(left, right, 32) == 0) {
            x->bad = 1;
        }
    } else {
        memcpy(right, left, 32);
    }
    hash_sha256d_64(out, left, right);
}

int partial_merkle_extract(const struct partial_merkle *pm, uint8_t root32[32],
                           uint8_t (**matches)[32], uint32_t **index, size_t *n_matches)
{
    *matches = NULL;
    *index = NULL;
    *n_matches = 0;
    memset(root32, 0, 32);
    /* A tree without transactions, over more than a block can hold, with more hashes than
     * txids, or with fewer bits than hashes proves nothing. */
    if (pm->n_tx == 0 || pm->n_tx > PARTIAL_MERKLE_MAX_TX || pm->n_hashes > pm->n_tx ||
        pm->n_bits < pm->n_hashes) {
        return RC_INVALID;
    }
    struct extract x = {.pm = pm};
    uint8_t root[32];
    extract_node(&x, tree_height(pm->n_tx), 0, root);
    /* Every hash used, and every bit but the padding of the last byte. */
    if (x.bad || (x.bits_used + 7) / 8 != (pm->n_bits + 7) / 8 || x.hashes_used != pm->n_hashes) {
        free(x.matches);
        free(x.index);
        return RC_INVALID;
    }
    memcpy(root32, root, 32);
    *matches = x.matches;
    *index = x.index;
    *n_matches = x.n;
    return RC_OK;
}
