/* Fuzz target: arbitrary descriptor strings (the bytes up to the first NUL), parsed for a
 * chain picked by the first byte's low bits.
 *
 * Nothing may crash, leak or read out of bounds; a failure must come with a message. A
 * descriptor that parses must print (each multipath alternative) as a string that parses
 * again, with its checksum required, and prints the same; the reparsed public form must
 * expand at index 0 (and 1 when ranged) to the same scripts as the original, unless the
 * original needed its private keys to derive them.
 *
 * The standalone driver (without libFuzzer) replays files and directories given on the
 * command line; without arguments it runs Core's descriptor vectors
 * (test/unit/descriptor_vectors.h, and its addresses as addr()) and every one-character
 * deletion and substitution by ')' or ',' of each, so the suite checks the property on tens
 * of thousands of near-misses.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
#include "sign/descriptor.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const CHAINS[] = {"main", "test", "regtest", "signet"};

static int expand(const struct script_descriptor *d, size_t alt, uint32_t pos,
                  struct buf spks[SCRIPT_DESC_MAX_SCRIPTS], size_t *n)
{
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&spks[i]);
    }
    return script_descriptor_expand(d, alt, pos, spks, n);
}

static void clear(struct buf spks[SCRIPT_DESC_MAX_SCRIPTS])
{
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
}

static void check_alt(const struct script_descriptor *d, size_t alt, const struct chain_params *p)
{
    struct buf s;
    buf_init(&s);
    script_descriptor_to_string(&s, d, alt);
    struct script_descriptor *again = NULL;
    char *err = NULL;
    if (script_descriptor_parse(&again, (const char *)s.data, 1, p, &err) != RC_OK) {
        fprintf(stderr, "printed form does not parse: %s: %s\n", (const char *)s.data, err);
        abort();
    }
    CHECK_ALWAYS(script_descriptor_multipath_count(again) == 1);
    CHECK_ALWAYS(script_descriptor_is_range(again) == script_descriptor_is_range(d));
    CHECK_ALWAYS(script_descriptor_is_solvable(again) == script_descriptor_is_solvable(d));
    CHECK_ALWAYS(!script_descriptor_has_private_keys(again));
    struct buf s2;
    buf_init(&s2);
    script_descriptor_to_string(&s2, again, 0);
    CHECK_ALWAYS(s.len == s2.len && memcmp(s.data, s2.data, s.len) == 0);
    for (uint32_t pos = 0; pos < (script_descriptor_is_range(d) ? 2u : 1u); pos++) {
        struct buf a[SCRIPT_DESC_MAX_SCRIPTS], b[SCRIPT_DESC_MAX_SCRIPTS];
        size_t na = 0, nb = 0;
        int ra = expand(d, alt, pos, a, &na), rb = expand(again, 0, pos, b, &nb);
        CHECK_ALWAYS(ra == RC_OK || ra == RC_INVALID);
        if (ra == RC_OK && rb == RC_OK) {
            CHECK_ALWAYS(na == nb);
            for (size_t i = 0; i < na; i++) {
                CHECK_ALWAYS(a[i].len == b[i].len && memcmp(a[i].data, b[i].data, a[i].len) == 0);
            }
        }
        /* The public form can only lack what the private keys gave. */
        CHECK_ALWAYS(rb == RC_OK || script_descriptor_has_private_keys(d) || ra != RC_OK);
        CHECK_ALWAYS(ra == RC_OK || rb != RC_OK);
        clear(a);
        clear(b);
    }
    script_descriptor_free(again);
    buf_clear(&s);
    buf_clear(&s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const struct chain_params *p = chain_params_get(CHAINS[data[0] & 3]);
    char *s = xmalloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    struct script_descriptor *d = NULL;
    char *err = NULL;
    if (script_descriptor_parse(&d, s, 0, p, &err) != RC_OK) {
        CHECK_ALWAYS(d == NULL && err != NULL);
        free(err);
    } else {
        for (size_t alt = 0; alt < script_descriptor_multipath_count(d); alt++) {
            check_alt(d, alt, p);
        }
        script_descriptor_free(d);
    }
    free(s);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

#define DV_RANGE 1
#define DV_HARDENED 2
#define DV_UNSOLVABLE 4
#include "../unit/descriptor_vectors.h"

/* Runs s (on main) and its one-character variants. */
static size_t run_with_variants(const char *s)
{
    size_t n = strlen(s), count = 0;
    uint8_t *buf = xmalloc(n + 2);
    buf[0] = 0; /* main */
    memcpy(buf + 1, s, n);
    LLVMFuzzerTestOneInput(buf, n + 1);
    count++;
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + 1, s, i);
        memcpy(buf + 1 + i, s + i + 1, n - i - 1);
        LLVMFuzzerTestOneInput(buf, n);
        static const char subst[] = "),";
        for (size_t k = 0; k < 2; k++) {
            memcpy(buf + 1, s, n);
            buf[1 + i] = (uint8_t)subst[k];
            LLVMFuzzerTestOneInput(buf, n + 1);
        }
        count += 3;
    }
    free(buf);
    return count;
}

static size_t builtin_inputs(void)
{
    size_t count = 0;
    for (size_t i = 0; i < sizeof(dv_checks) / sizeof(dv_checks[0]); i++) {
        count += run_with_variants(dv_checks[i].prv);
        count += run_with_variants(dv_checks[i].pub);
    }
    for (size_t i = 0; i < sizeof(dv_multis) / sizeof(dv_multis[0]); i++) {
        count += run_with_variants(dv_multis[i].pub);
    }
    for (size_t i = 0; i < sizeof(dv_bads) / sizeof(dv_bads[0]); i++) {
        count += run_with_variants(dv_bads[i].pub);
    }
    char a[200];
    for (size_t i = 0; i < sizeof(dv_addr_oks) / sizeof(dv_addr_oks[0]); i++) {
        snprintf(a, sizeof(a), "addr(%s)", dv_addr_oks[i].addr);
        count += run_with_variants(a);
    }
    for (size_t i = 0; i < sizeof(dv_addr_bads) / sizeof(dv_addr_bads[0]); i++) {
        snprintf(a, sizeof(a), "addr(%s)", dv_addr_bads[i].addr);
        count += run_with_variants(a);
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs,
                            "descriptor inputs (Core's vectors and one-character variants)");
}
#endif
