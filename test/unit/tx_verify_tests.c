/* validation/tx_verify: Core's CheckTxInputs and BIP68 sequence locks, the one copy that
 * block connection and the mempool share, and amount_format_money (Core's FormatMoney) that
 * its messages use. Amounts, depths and heights on both sides of each boundary. */
#include "test.h"

#include "blockstore/blockindex.h"
#include "consensus/amount.h"
#include "util/rc.h"
#include "validation/tx_verify.h"

#define COIN 100000000LL

/* A transaction with n inputs (sequences seq[i]) and one output paying out. */
static void make_tx(struct tx *tx, int32_t version, size_t n, const uint32_t *seq, int64_t out)
{
    static struct tx_in ins[4];
    static struct tx_out outs[1];
    memset(tx, 0, sizeof(*tx));
    memset(ins, 0, sizeof(ins));
    tx->version = version;
    tx->vin = ins;
    tx->vin_count = n;
    for (size_t i = 0; i < n; i++) {
        ins[i].sequence = seq ? seq[i] : 0xffffffffu;
        ins[i].prevout.n = (uint32_t)i;
    }
    outs[0].value_sat = out;
    tx->vout = outs;
    tx->vout_count = 1;
}

static struct coin coin_at(int64_t value, uint32_t height, int coinbase)
{
    struct coin c = {.value_sat = value, .height = height, .coinbase = coinbase};
    return c;
}

static void test_inputs_fee_and_maturity(void)
{
    struct tx tx;
    struct vstate st;
    int64_t fee = -1;
    struct coin spent[2] = {coin_at(2 * COIN, 10, 1), coin_at(COIN, 50, 0)};
    make_tx(&tx, 2, 2, NULL, 3 * COIN - 1000);

    /* A coinbase of height 10 is spendable from height 110 (depth 100), not at 109. */
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, spent, 110, &st, &fee), RC_OK);
    CHECK_EQ_INT(fee, 1000);
    CHECK(vstate_is_valid(&st));
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, spent, 109, &st, &fee), RC_INVALID);
    CHECK_EQ_STR(st.reject, "bad-txns-premature-spend-of-coinbase");
    CHECK_EQ_STR(st.debug, "tried to spend coinbase at depth 99");
    CHECK_EQ_INT(st.result, VRESULT_TX_PREMATURE_SPEND);

    /* A coin that is not a coinbase is spendable at any depth. */
    struct coin young[1] = {coin_at(COIN, 200, 0)};
    make_tx(&tx, 2, 1, NULL, COIN);
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, young, 200, &st, &fee), RC_OK);
    CHECK_EQ_INT(fee, 0);
}

static void test_inputs_amounts(void)
{
    struct tx tx;
    struct vstate st;
    int64_t fee;

    /* One satoshi more out than in: Core's words and FormatMoney's amounts. */
    struct coin spent[1] = {coin_at(10000, 1, 0)};
    make_tx(&tx, 2, 1, NULL, 10001);
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, spent, 500, &st, &fee), RC_INVALID);
    CHECK_EQ_STR(st.reject, "bad-txns-in-belowout");
    CHECK_EQ_STR(st.debug, "value in (0.0001) < value out (0.00010001)");
    CHECK_EQ_INT(st.result, VRESULT_CONSENSUS);

    /* An input over MAX_MONEY, and two whose sum is. */
    struct coin big[2] = {coin_at(MAX_MONEY + 1, 1, 0), coin_at(1, 1, 0)};
    make_tx(&tx, 2, 1, NULL, 1);
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, big, 500, &st, &fee), RC_INVALID);
    CHECK_EQ_STR(st.reject, "bad-txns-inputvalues-outofrange");
    struct coin sum[2] = {coin_at(MAX_MONEY, 1, 0), coin_at(1, 1, 0)};
    make_tx(&tx, 2, 2, NULL, 1);
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, sum, 500, &st, &fee), RC_INVALID);
    CHECK_EQ_STR(st.reject, "bad-txns-inputvalues-outofrange");
    struct coin max[1] = {coin_at(MAX_MONEY, 1, 0)};
    make_tx(&tx, 2, 1, NULL, 0);
    vstate_init(&st);
    CHECK_EQ_INT(tx_verify_inputs(&tx, max, 500, &st, &fee), RC_OK);
    CHECK_EQ_INT(fee, MAX_MONEY);
}

static void test_format_money(void)
{
    char s[AMOUNT_FORMAT_LEN];
    static const struct {
        int64_t sat;
        const char *text;
    } v[] = {{0, "0.00"},
             {COIN, "1.00"},
             {COIN / 10, "0.10"},
             {10000, "0.0001"},
             {1, "0.00000001"},
             {-1, "-0.00000001"},
             {123456789, "1.23456789"},
             {21000000 * COIN, "21000000.00"}};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        amount_format_money(s, v[i].sat);
        CHECK_EQ_STR(s, v[i].text);
    }
}

/* A chain of n blocks, block h at time 1000 + 600 h: the median time past of block h
 * (h >= 10) is the time of block h - 5. */
static struct block_index *chain(struct block_tree *t, int n)
{
    struct block_index *prev = NULL;
    for (int h = 0; h < n; h++) {
        struct block_header hd = {.version = 4,
                                  .time = (uint32_t)(1000 + 600 * h),
                                  .bits = 0x207fffff,
                                  .nonce = (uint32_t)h};
        if (prev) {
            memcpy(hd.prev_hash, prev->hash, 32);
        }
        prev = block_tree_add(t, &hd, prev, BLOCK_VALID_TREE);
    }
    return prev;
}

static void test_sequence_locks_height(void)
{
    struct block_tree *t = block_tree_new();
    struct block_index *tip = chain(t, 40);
    struct tx tx;
    uint32_t seq[1] = {5};
    uint32_t heights[1] = {20};
    make_tx(&tx, 2, 1, seq, 1);
    /* A coin of height 20 locked for 5 blocks: spendable in block 25, not in block 24. */
    struct block_index *p23 = block_index_ancestor(tip, 23), *p24 = block_index_ancestor(tip, 24);
    CHECK(!tx_verify_sequence_locks(&tx, heights, p23, block_index_median_time_past(p23)));
    CHECK(tx_verify_sequence_locks(&tx, heights, p24, block_index_median_time_past(p24)));
    /* Version 1, or the disable flag: no lock. */
    make_tx(&tx, 1, 1, seq, 1);
    CHECK(tx_verify_sequence_locks(&tx, heights, p23, block_index_median_time_past(p23)));
    seq[0] = 5 | SEQUENCE_LOCKTIME_DISABLE_FLAG;
    make_tx(&tx, 2, 1, seq, 1);
    CHECK(tx_verify_sequence_locks(&tx, heights, p23, block_index_median_time_past(p23)));
    /* Bits outside the mask and the flags are ignored. */
    seq[0] = 5 | (1u << 20);
    make_tx(&tx, 2, 1, seq, 1);
    CHECK(!tx_verify_sequence_locks(&tx, heights, p23, block_index_median_time_past(p23)));
    CHECK(tx_verify_sequence_locks(&tx, heights, p24, block_index_median_time_past(p24)));
    block_tree_free(t);
}

static void test_sequence_locks_time(void)
{
    struct block_tree *t = block_tree_new();
    struct block_index *tip = chain(t, 60);
    struct tx tx;
    /* 2 units of 512 s from the median time past of block 19 (the block before the coin's):
     * the lock ends at mtp(19) + 1024 - 1; a block may hold it once its parent's median time
     * past is past that. */
    uint32_t seq[1] = {SEQUENCE_LOCKTIME_TYPE_FLAG | 2};
    uint32_t heights[1] = {20};
    make_tx(&tx, 2, 1, seq, 1);
    int64_t until = block_index_median_time_past(block_index_ancestor(tip, 19)) + 1024 - 1;
    struct block_index *ok = NULL, *before = NULL;
    for (int h = 20; h < 60 && !ok; h++) {
        struct block_index *p = block_index_ancestor(tip, h);
        if (block_index_median_time_past(p) > until) {
            ok = p;
        } else {
            before = p;
        }
    }
    CHECK(ok != NULL && before != NULL);
    if (ok && before) {
        CHECK(tx_verify_sequence_locks(&tx, heights, ok, block_index_median_time_past(ok)));
        CHECK(
            !tx_verify_sequence_locks(&tx, heights, before, block_index_median_time_past(before)));
    }
    /* The later of two inputs' locks decides: a height lock still open fails it. */
    uint32_t seq2[2] = {SEQUENCE_LOCKTIME_TYPE_FLAG | 2, 100};
    uint32_t heights2[2] = {20, 20};
    make_tx(&tx, 2, 2, seq2, 1);
    if (ok) {
        CHECK(!tx_verify_sequence_locks(&tx, heights2, ok, block_index_median_time_past(ok)));
    }
    block_tree_free(t);
}

int main(void)
{
    TEST(test_inputs_fee_and_maturity);
    TEST(test_inputs_amounts);
    TEST(test_format_money);
    TEST(test_sequence_locks_height);
    TEST(test_sequence_locks_time);
    return test_done();
}
