/* Merkle roots: Bitcoin Core's ComputeMerkleRoot (src/consensus/merkle.cpp), including its
 * CVE-2012-2459 mutation detection. */
#include "consensus/merkle.h"

#include <string.h>

#include "crypto/hash.h"
#include "util/xmalloc.h"

/* Reduces the n nodes in h (room for n + 1) to the root, in place. */
static void reduce(uint8_t root32[32], int *mutated, uint8_t (*h)[32], size_t n)
{
    int mutation = 0;
    while (n > 1) {
        /* Two equal nodes at an even position: the same root results from the list with a
         * duplicated subtree, so the list is not the only one with this root. Checked before
         * the odd-level duplication, which is not a mutation by itself. */
        for (size_t i = 0; i + 1 < n; i += 2) {
            if (memcmp(h[i], h[i + 1], 32) == 0) {
                mutation = 1;
            }
        }
        if (n & 1) {
            memcpy(h[n], h[n - 1], 32);
            n++;
        }
        for (size_t i = 0; i < n / 2; i++) {
            uint8_t parent[32];
            hash_sha256d_64(parent, h[2 * i], h[2 * i + 1]);
            memcpy(h[i], parent, 32);
        }
        n /= 2;
    }
    if (mutated) {
        *mutated = mutation;
    }
    if (n == 0) {
        memset(root32, 0, 32);
    } else {
        memcpy(root32, h[0], 32);
    }
}

void merkle_root(uint8_t root32[32], int *mutated, const uint8_t (*leaves)[32], size_t n)
{
    uint8_t(*h)[32] = xmalloc((n + 1) * 32);
    if (n) {
        memcpy(h, leaves, n * 32);
    }
    reduce(root32, mutated, h, n);
    free(h);
}

void merkle_block_root(uint8_t root32[32], int *mutated, const struct block *b)
{
    size_t n = b->tx_count;
    uint8_t(*h)[32] = xmalloc((n + 1) * 32);
    for (size_t i = 0; i < n; i++) {
        memcpy(h[i], b->txs[i].txid, 32);
    }
    reduce(root32, mutated, h, n);
    free(h);
}

void merkle_block_witness_root(uint8_t root32[32], int *mutated, const struct block *b)
{
    size_t n = b->tx_count;
    uint8_t(*h)[32] = xmalloc((n + 1) * 32);
    for (size_t i = 0; i < n; i++) {
        if (i == 0) {
            memset(h[0], 0, 32); /* the coinbase's wtxid is defined as zero (BIP141) */
        } else {
            memcpy(h[i], b->txs[i].wtxid, 32);
        }
    }
    reduce(root32, mutated, h, n);
    free(h);
}

int merkle_witness_commitment_index(const struct block *b)
{
    static const uint8_t prefix[6] = {0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed};
    int found = -1;
    if (b->tx_count == 0) {
        return -1;
    }
    const struct tx *cb = &b->txs[0];
    for (size_t o = 0; o < cb->vout_count; o++) {
        const struct bytes *spk = &cb->vout[o].script_pubkey;
        if (spk->len >= 38 && memcmp(spk->data, prefix, 6) == 0) {
            found = (int)o;
        }
    }
    return found;
}
