/* bitnode-util check-headers: a file of consecutive 80-byte block headers (the format of
 * ../shared/data's header chains; doc/files.md, "Header files") checked as a node checks
 * headers: each links to the one before, meets its own proof of work, carries the
 * difficulty the chain's retarget rule requires (main's 2016-block rule, testnet3's
 * 20-minute rule, testnet4's BIP94, signet, regtest's none) and a time above the median of
 * the 11 before it; prints the count, the tip and the chain work. The file may start at any
 * height (--height H): rules whose inputs lie before the file are checked as far as the
 * headers at hand allow (Core's PermittedDifficultyTransition), and counted apart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/arith256.h"
#include "consensus/params.h"
#include "consensus/pow.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "util/file.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

int util_cmd_check_headers(int argc, char **argv, const struct chain_params *chain);

struct hdr {
    struct block_header h;
    uint8_t hash[32];
};

struct chain_view {
    const struct hdr *v;
    int first_height; /* of v[0] */
};

/* pow_ancestor_fn over the headers of the file; heights before it are out of reach. */
static int ancestor(void *ctx, int height, struct pow_block_info *out)
{
    const struct chain_view *c = ctx;
    if (height < c->first_height) {
        return RC_NOT_FOUND;
    }
    const struct block_header *h = &c->v[height - c->first_height].h;
    out->height = height;
    out->bits = h->bits;
    out->time = h->time;
    return RC_OK;
}

static int cmp_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int util_cmd_check_headers(int argc, char **argv, const struct chain_params *chain)
{
    const char *path = NULL;
    long long first = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--height") == 0 && i + 1 < argc) {
            char *end;
            first = strtoll(argv[++i], &end, 10);
            if (*end || first < 0 || first > INT32_MAX) {
                fprintf(stderr, "bitnode-util: --height needs a height, not '%s'\n", argv[i]);
                return 1;
            }
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "bitnode-util: check-headers takes one FILE [--height H]\n");
            return 1;
        }
    }
    if (!path) {
        fprintf(stderr, "bitnode-util: check-headers needs a FILE of 80-byte headers\n");
        return 1;
    }
    const struct chain_params *p = chain ? chain : chain_params_get("main");
    struct buf raw;
    char err[512];
    buf_init(&raw);
    if (file_read_all(&raw, path, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "bitnode-util: %s\n", err);
        return 1;
    }
    if (raw.len == 0 || raw.len % 80 != 0) {
        fprintf(stderr,
                "bitnode-util: %s: %zu bytes is not a whole number of 80-byte headers\n", path,
                raw.len);
        buf_clear(&raw);
        return 1;
    }
    size_t n = raw.len / 80;
    struct hdr *v = xmalloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        struct reader r;
        reader_init(&r, raw.data + 80 * i, 80);
        block_header_parse(&v[i].h, &r); /* 80 bytes always parse */
        block_header_hash(&v[i].h, v[i].hash);
    }
    buf_clear(&raw);

    struct chain_view view = {v, (int)first};
    struct u256 work;
    u256_set_u64(&work, 0);
    uint64_t failures = 0, retargets = 0, approximate = 0;
    int interval = chain_params_retarget_interval(p);
    for (size_t i = 0; i < n; i++) {
        const struct block_header *h = &v[i].h;
        long long height = first + (long long)i;
        char hx[65];
        hex_encode_rev(hx, v[i].hash, 32);
        if (height == 0 && memcmp(v[i].hash, p->genesis_hash, 32) != 0) {
            printf("height 0: %s is not the %s genesis block\n", hx, p->name);
            failures++;
        }
        if (i > 0 && memcmp(h->prev_hash, v[i - 1].hash, 32) != 0) {
            printf("height %lld: %s does not link to the header before it (bad-prevblk)\n",
                   height, hx);
            failures++;
        }
        if (!pow_check(v[i].hash, h->bits, p)) {
            printf("height %lld: %s does not meet its proof of work %08x (high-hash)\n", height,
                   hx, h->bits);
            failures++;
        }
        if (i > 0) {
            struct pow_block_info last = {(int)height - 1, v[i - 1].h.bits, v[i - 1].h.time};
            uint32_t want;
            int rc = pow_next_work_required(&want, &last, h->time, p, ancestor, &view);
            if (rc == RC_OK) {
                if (height % interval == 0) {
                    retargets++;
                }
                if (want != h->bits) {
                    printf("height %lld: %s has bits %08x, the chain requires %08x "
                           "(bad-diffbits)\n",
                           height, hx, h->bits, want);
                    failures++;
                }
            } else {
                /* The rule needs headers from before the file. */
                approximate++;
                if (!pow_permitted_transition(height, v[i - 1].h.bits, h->bits, p)) {
                    printf("height %lld: %s: bits %08x cannot follow %08x (bad-diffbits)\n",
                           height, hx, h->bits, v[i - 1].h.bits);
                    failures++;
                }
            }
        }
        if (i >= 11) {
            int64_t times[11];
            for (int k = 0; k < 11; k++) {
                times[k] = v[i - 1 - (size_t)k].h.time;
            }
            qsort(times, 11, sizeof(times[0]), cmp_time);
            if ((int64_t)h->time <= times[5]) {
                printf("height %lld: %s: time %u is not above the median time past %" PRId64
                       " (time-too-old)\n",
                       height, hx, h->time, times[5]);
                failures++;
            }
        }
        struct u256 proof;
        pow_block_proof(&proof, h->bits);
        u256_add(&work, &work, &proof);
    }
    char tip[65], cw[65];
    hex_encode_rev(tip, v[n - 1].hash, 32);
    u256_to_hex(cw, &work);
    printf("chain: %s\n", p->name);
    printf("headers: %zu (heights %lld..%lld)\n", n, first, first + (long long)n - 1);
    printf("tip: height %lld hash %s\n", first + (long long)n - 1, tip);
    printf("chainwork: %s%s\n", cw, first > 0 ? " (of the headers in the file)" : "");
    printf("retargets checked: %llu\n", (unsigned long long)retargets);
    if (approximate) {
        printf("difficulty checked only as a permitted transition (needs earlier headers): %llu "
               "headers\n",
               (unsigned long long)approximate);
    }
    free(v);
    if (failures) {
        printf("FAILED: %llu problems\n", (unsigned long long)failures);
        return 1;
    }
    return 0;
}
