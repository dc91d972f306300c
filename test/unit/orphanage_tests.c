/* net/orphanage: Core's orphanage rules. Announcers added once each, the orphan kept until
 * its last announcer goes; children taken out by parent; erased by a block that spends the
 * same outputs; over the weight reserved per peer, the peer using the most loses its oldest
 * announcements and a modest peer keeps its orphan; transactions over the standard weight
 * are not kept. */
#include <stdlib.h>
#include <string.h>

#include "net/orphanage.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "test.h"
#include "util/buf.h"
#include "util/rc.h"

/* A transaction spending (parent_tag, n) with one output whose script has script_len bytes:
 * its bytes in *raw (caller clears) and parsed in *tx (caller clears). */
static void make_tx(struct buf *raw, struct tx *tx, uint8_t parent_tag, uint32_t n,
                    size_t script_len, uint8_t salt)
{
    buf_init(raw);
    buf_put_u32le(raw, 2);
    buf_put_u8(raw, 1);
    uint8_t prev[32];
    memset(prev, parent_tag, 32);
    buf_append(raw, prev, 32);
    buf_put_u32le(raw, n);
    buf_put_u8(raw, 0);
    buf_put_u32le(raw, 0xffffffffu);
    buf_put_u8(raw, 1);
    buf_put_u64le(raw, 1000 + salt);
    ser_put_compact(raw, script_len);
    buf_append_fill(raw, 0x51, script_len);
    buf_put_u32le(raw, 0);
    CHECK_EQ_INT(tx_deserialize(tx, raw->data, raw->len, NULL, 0), RC_OK);
}

static const struct orphan *add(struct orphanage *o, uint8_t parent_tag, uint32_t n,
                                size_t script_len, uint8_t salt, int64_t peer)
{
    struct buf raw;
    struct tx tx;
    make_tx(&raw, &tx, parent_tag, n, script_len, salt);
    const struct orphan *x = orphanage_add(o, raw.data, raw.len, &tx);
    if (x) {
        uint8_t w[32];
        memcpy(w, x->wtxid, 32);
        CHECK_EQ_INT(orphanage_add_announcer(o, w, peer), 1);
        x = orphanage_get(o, w);
    }
    tx_clear(&tx);
    buf_clear(&raw);
    return x;
}

static void test_announcers(void)
{
    struct orphanage *o;
    orphanage_new(&o);
    const struct orphan *x = add(o, 0xaa, 0, 10, 1, 1);
    CHECK(x != NULL);
    uint8_t w[32];
    memcpy(w, x->wtxid, 32);
    CHECK_EQ_INT(orphanage_add_announcer(o, w, 1), 0);
    CHECK_EQ_INT(orphanage_add_announcer(o, w, 2), 1);
    CHECK_EQ_INT(orphanage_get(o, w)->n_from, 2);
    CHECK_EQ_INT(orphanage_get(o, w)->from[0], 1);
    orphanage_erase_for_peer(o, 1);
    CHECK(orphanage_get(o, w) != NULL);
    orphanage_erase_for_peer(o, 2);
    CHECK(orphanage_get(o, w) == NULL);
    CHECK_EQ_INT(orphanage_size(o), 0);
    orphanage_free(o);
}

static void test_children_and_block(void)
{
    struct orphanage *o;
    orphanage_new(&o);
    add(o, 0x11, 0, 10, 1, 1);
    add(o, 0x11, 1, 10, 2, 1);
    add(o, 0x22, 0, 10, 3, 1);
    uint8_t parent[32];
    memset(parent, 0x11, 32);
    struct orphan *kids;
    CHECK_EQ_INT(orphanage_take_children(o, &kids, parent), 2);
    for (size_t i = 0; i < 2; i++) {
        orphanage_orphan_clear(&kids[i]);
    }
    free(kids);
    CHECK_EQ_INT(orphanage_size(o), 1);
    /* A block spending (0x22.., 0) with another transaction conflicts with the orphan. */
    struct block b;
    memset(&b, 0, sizeof(b));
    struct buf raw;
    struct tx tx;
    make_tx(&raw, &tx, 0x22, 0, 5, 9);
    b.txs = &tx;
    b.tx_count = 1;
    orphanage_erase_for_block(o, &b);
    CHECK_EQ_INT(orphanage_size(o), 0);
    tx_clear(&tx);
    buf_clear(&raw);
    orphanage_free(o);
}

static void test_limits(void)
{
    struct orphanage *o;
    orphanage_new(&o);
    /* Over the standard weight: not kept. */
    CHECK(add(o, 0x01, 0, 100001, 0, 1) == NULL);
    /* A modest peer's orphan, then a doser's large ones (about 360,000 weight each). */
    const struct orphan *mine = add(o, 0x02, 0, 10, 0, 7);
    uint8_t w[32];
    memcpy(w, mine->wtxid, 32);
    for (uint8_t i = 0; i < 10; i++) {
        add(o, 0x03, i, 90000, i, 8);
        orphanage_limit(o);
    }
    CHECK(orphanage_get(o, w) != NULL);
    /* Two peers with orphans: 808,000 weight units reserved; the doser keeps two. */
    CHECK_EQ_INT(orphanage_size(o), 3);
    orphanage_free(o);
}

int main(void)
{
    TEST(test_announcers);
    TEST(test_children_and_block);
    TEST(test_limits);
    return test_done();
}
