/* Proof of work and retargeting (Bitcoin Core's pow.cpp, GetBlockProof). */
#include "consensus/pow.h"

#include <stdint.h>

#include "util/check.h"
#include "util/rc.h"

int pow_check(const uint8_t hash32[32], uint32_t bits, const struct chain_params *p)
{
    struct u256 target, hash;
    int negative, overflow;

    u256_set_compact(&target, bits, &negative, &overflow);
    if (negative || overflow || u256_is_zero(&target) || u256_cmp(&target, &p->pow_limit) > 0) {
        return 0;
    }
    u256_from_le32(&hash, hash32);
    return u256_cmp(&hash, &target) <= 0;
}

void pow_block_proof(struct u256 *work, uint32_t bits)
{
    struct u256 target, not_target, target_plus_1;
    int negative, overflow;

    u256_set_compact(&target, bits, &negative, &overflow);
    if (negative || overflow || u256_is_zero(&target)) {
        u256_set_u64(work, 0);
        return;
    }
    /* 2^256 does not fit, but 2^256 / (t+1) == (2^256 - t - 1) / (t+1) + 1 == ~t / (t+1) + 1.
     * A compact target is never 2^256 - 1 (the mantissa is at most 0x7fffff), so t + 1 != 0. */
    u256_not(&not_target, &target);
    u256_add_u64(&target_plus_1, &target, 1);
    u256_div(work, &not_target, &target_plus_1);
    u256_add_u64(work, work, 1);
}

/* new = base * timespan / target_timespan, capped at the limit. Like Core, the product is
 * taken modulo 2^256; with real pow limits (at most 2^255) times at most 4 * 14 days it
 * never wraps, except on regtest, which never retargets. */
static uint32_t retarget(uint32_t base_bits, int64_t actual, const struct chain_params *p)
{
    struct u256 t, timespan;

    u256_set_compact(&t, base_bits, NULL, NULL);
    CHECK_ALWAYS(actual >= 0 && actual <= UINT32_MAX);
    u256_mul_u32(&t, &t, (uint32_t)actual);
    u256_set_u64(&timespan, (uint64_t)p->pow_target_timespan);
    u256_div(&t, &t, &timespan);
    if (u256_cmp(&t, &p->pow_limit) > 0) {
        t = p->pow_limit;
    }
    return u256_get_compact(&t, 0);
}

uint32_t pow_calculate_next_work(uint32_t last_bits, int64_t last_time, uint32_t first_bits,
                                 int64_t first_time, const struct chain_params *p)
{
    if (p->pow_no_retargeting) {
        return last_bits;
    }
    int64_t actual = last_time - first_time;
    if (actual < p->pow_target_timespan / 4) {
        actual = p->pow_target_timespan / 4;
    }
    if (actual > p->pow_target_timespan * 4) {
        actual = p->pow_target_timespan * 4;
    }
    /* BIP94: the first block of a period cannot be a min-difficulty block, so its bits
     * carry the period's real difficulty. */
    return retarget(p->enforce_bip94 ? first_bits : last_bits, actual, p);
}

int pow_next_work_required(uint32_t *bits_out, const struct pow_block_info *last, int64_t new_time,
                           const struct chain_params *p, pow_ancestor_fn ancestor, void *ctx)
{
    int interval = chain_params_retarget_interval(p);
    int rc;

    CHECK_ALWAYS(last->height >= 0);
    if ((last->height + 1) % interval != 0) {
        if (p->pow_allow_min_difficulty_blocks) {
            /* Testnet: a block more than twice the target spacing after its parent may be
             * mined at minimum difficulty. */
            if (new_time > last->time + p->pow_target_spacing * 2) {
                *bits_out = p->pow_limit_bits;
                return RC_OK;
            }
            /* Otherwise it continues the last block that did not use that exception. */
            struct pow_block_info b = *last;
            while (b.height > 0 && b.height % interval != 0 && b.bits == p->pow_limit_bits) {
                int want = b.height - 1;
                rc = ancestor(ctx, want, &b);
                if (rc != RC_OK) {
                    return rc;
                }
                CHECK_ALWAYS(b.height == want);
            }
            *bits_out = b.bits;
            return RC_OK;
        }
        *bits_out = last->bits;
        return RC_OK;
    }

    /* A new period: look at the whole of the one that just ended. */
    struct pow_block_info first;
    int first_height = last->height - (interval - 1);
    CHECK_ALWAYS(first_height >= 0);
    if (first_height == last->height) {
        first = *last;
    } else {
        rc = ancestor(ctx, first_height, &first);
        if (rc != RC_OK) {
            return rc;
        }
        CHECK_ALWAYS(first.height == first_height);
    }
    *bits_out = pow_calculate_next_work(last->bits, last->time, first.bits, first.time, p);
    return RC_OK;
}

/* Target from old_bits scaled by timespan / target timespan, capped at the limit, then
 * rounded through compact form. */
static void scaled_bound(struct u256 *out, uint32_t old_bits, int64_t timespan,
                         const struct chain_params *p)
{
    uint32_t bits = retarget(old_bits, timespan, p);
    u256_set_compact(out, bits, NULL, NULL);
}

int pow_permitted_transition(int64_t height, uint32_t old_bits, uint32_t new_bits,
                             const struct chain_params *p)
{
    if (p->pow_allow_min_difficulty_blocks) {
        return 1;
    }
    if (height % chain_params_retarget_interval(p) == 0) {
        struct u256 observed, largest, smallest;
        u256_set_compact(&observed, new_bits, NULL, NULL);
        scaled_bound(&largest, old_bits, p->pow_target_timespan * 4, p);
        if (u256_cmp(&largest, &observed) < 0) {
            return 0;
        }
        scaled_bound(&smallest, old_bits, p->pow_target_timespan / 4, p);
        if (u256_cmp(&smallest, &observed) > 0) {
            return 0;
        }
        return 1;
    }
    return old_bits == new_bits;
}

int64_t pow_proof_equivalent_time(const struct u256 *to_work, const struct u256 *from_work,
                                  uint32_t tip_bits, const struct chain_params *p)
{
    struct u256 r, proof;
    int sign = 1;

    if (u256_cmp(to_work, from_work) > 0) {
        u256_sub(&r, to_work, from_work);
    } else {
        u256_sub(&r, from_work, to_work);
        sign = -1;
    }
    CHECK_ALWAYS(p->pow_target_spacing > 0 && p->pow_target_spacing <= UINT32_MAX);
    u256_mul_u32(&r, &r, (uint32_t)p->pow_target_spacing);
    pow_block_proof(&proof, tip_bits);
    CHECK_ALWAYS(!u256_is_zero(&proof));
    u256_div(&r, &r, &proof);
    if (u256_bits(&r) > 63) {
        return sign * INT64_MAX;
    }
    return sign * (int64_t)u256_low64(&r);
}
