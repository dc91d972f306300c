/* BIP157 serving (cfilters.h). Messages, all hashes in internal byte order:
 *
 *   getcfilters  := u8 type  u32 start_height  stop_hash[32]
 *   cfilter      := u8 type  block_hash[32]  compact_size len  filter[len]     (one per block)
 *   getcfheaders := u8 type  u32 start_height  stop_hash[32]
 *   cfheaders    := u8 type  stop_hash[32]  prev_header[32]  compact_size n  filter_hash[32]{n}
 *   getcfcheckpt := u8 type  stop_hash[32]
 *   cfcheckpt    := u8 type  stop_hash[32]  compact_size n  header[32]{n}  (every 1000th block)
 */
#include "net/cfilters.h"

#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "index/blockfilter.h"
#include "index/blockfilterindex.h"
#include "net/net_impl.h"
#include "primitives/serialize.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

struct request {
    uint8_t type;
    uint32_t start;
    uint8_t stop_hash[32];
    int checkpt;
    struct block_index *stop;
    uint8_t (*hashes)[32]; /* the blocks of stop's chain: start..stop, or every checkpoint */
    size_t n;
};

static void refuse(struct peer *p, const char *why)
{
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s, disconnecting peer=%lld", why, (long long)p->id);
    net_peer_disconnect(p, why);
}

/* Core's BlockRequestAllowed: on the active chain, or a valid block whose data we have. */
static int allowed(struct chainstate *cs, struct block_index *e)
{
    return e && (chainstate_contains(cs, e) ||
                 ((e->status & BLOCK_HAVE_DATA) && block_index_is_valid(e, BLOCK_VALID_SCRIPTS)));
}

/* Core's PrepareBlockFilterRequest, then the hashes of the blocks asked for (with_range) or
 * of the checkpoints. 0, or -1 after the peer was refused. */
static int prepare(struct blockfilter_index *bfi, struct chainstate *cs, struct peer *p,
                   struct request *r, uint32_t max_diff)
{
    char why[200], hx[65];
    if (r->type != BLOCKFILTER_TYPE_BASIC || !bfi) {
        snprintf(why, sizeof(why), "peer requested unsupported block filter type: %d", r->type);
        refuse(p, why);
        return -1;
    }
    chainstate_read_lock(cs);
    r->stop = block_tree_find(chainstate_tree(cs), r->stop_hash);
    int ok = allowed(cs, r->stop);
    uint32_t stop_height = ok ? (uint32_t)r->stop->height : 0;
    if (ok && r->start <= stop_height && stop_height - r->start < max_diff) {
        size_t step = r->checkpt ? CFILTERS_CHECKPT_INTERVAL : 1;
        size_t first = r->checkpt ? CFILTERS_CHECKPT_INTERVAL : r->start;
        r->n = r->checkpt ? stop_height / CFILTERS_CHECKPT_INTERVAL : stop_height - r->start + 1;
        r->hashes = xmalloc((r->n ? r->n : 1) * 32);
        for (size_t i = 0; i < r->n; i++) {
            int32_t h = (int32_t)(first + i * step);
            memcpy(r->hashes[i], block_index_ancestor(r->stop, h)->hash, 32);
        }
    }
    chainstate_read_unlock(cs);
    if (!ok) {
        hex_encode_rev(hx, r->stop_hash, 32);
        snprintf(why, sizeof(why), "peer requested invalid block hash: %s", hx);
    } else if (r->start > stop_height) {
        snprintf(why, sizeof(why),
                 "peer sent invalid getcfilters/getcfheaders with start height %u and stop "
                 "height %u",
                 r->start, stop_height);
    } else if (!r->hashes) {
        snprintf(why, sizeof(why), "peer requested too many cfilters/cfheaders: %u / %u",
                 stop_height - r->start + 1, max_diff);
    } else {
        return 0;
    }
    refuse(p, why);
    return -1;
}

/* The filter of hash into f (emptied first); logs a miss. */
static int lookup(struct blockfilter_index *bfi, const uint8_t hash[32], struct buf *f,
                  uint8_t header[32])
{
    buf_reset(f);
    int rc = blockfilter_index_lookup(bfi, hash, f, header);
    if (rc != RC_OK) {
        char hx[65];
        hex_encode_rev(hx, hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "Failed to find block filter in index: filter_type=basic, block_hash=%s", hx);
    }
    return rc;
}

static void on_getcfilters(struct blockfilter_index *bfi, struct peer *p, struct request *r)
{
    struct buf f;
    uint8_t header[32];
    buf_init(&f);
    struct buf *all = xcalloc(r->n, sizeof(*all));
    size_t got = 0;
    for (; got < r->n && lookup(bfi, r->hashes[got], &f, header) == RC_OK; got++) {
        buf_init(&all[got]);
        buf_put_u8(&all[got], r->type);
        buf_append(&all[got], r->hashes[got], 32);
        ser_put_varbytes(&all[got], f.data, f.len);
    }
    for (size_t i = 0; i < got; i++) {
        if (got == r->n) { /* all or nothing, as Core */
            net_send(p, "cfilter", &all[i]);
        }
        buf_clear(&all[i]);
    }
    free(all);
    buf_clear(&f);
}

static void on_getcfheaders(struct blockfilter_index *bfi, struct peer *p, struct request *r)
{
    struct buf f, msg;
    uint8_t header[32], prev[32] = {0}, fh[32];
    buf_init(&f);
    buf_init(&msg);
    buf_put_u8(&msg, r->type);
    buf_append(&msg, r->stop_hash, 32);
    int ok = 1;
    if (r->start > 0) {
        uint8_t before[32];
        memcpy(before, block_index_ancestor(r->stop, (int32_t)r->start - 1)->hash, 32);
        ok = lookup(bfi, before, &f, prev) == RC_OK;
    }
    buf_append(&msg, prev, 32);
    ser_put_compact(&msg, r->n);
    for (size_t i = 0; ok && i < r->n; i++) {
        if ((ok = lookup(bfi, r->hashes[i], &f, header) == RC_OK)) {
            blockfilter_hash(f.data, f.len, fh);
            buf_append(&msg, fh, 32);
        }
    }
    if (ok) {
        net_send(p, "cfheaders", &msg);
    }
    buf_clear(&msg);
    buf_clear(&f);
}

static void on_getcfcheckpt(struct blockfilter_index *bfi, struct peer *p, struct request *r)
{
    struct buf f, msg;
    uint8_t header[32];
    buf_init(&f);
    buf_init(&msg);
    buf_put_u8(&msg, r->type);
    buf_append(&msg, r->stop_hash, 32);
    ser_put_compact(&msg, r->n);
    int ok = 1;
    for (size_t i = 0; ok && i < r->n; i++) {
        ok = lookup(bfi, r->hashes[i], &f, header) == RC_OK;
        buf_append(&msg, header, 32);
    }
    if (ok) {
        net_send(p, "cfcheckpt", &msg);
    }
    buf_clear(&msg);
    buf_clear(&f);
}

void cfilters_on_request(struct blockfilter_index *bfi, struct chainstate *cs, struct peer *p,
                         const char *command, const uint8_t *d, size_t len)
{
    struct request r = {0};
    int checkpt = strcmp(command, "getcfcheckpt") == 0;
    if (len != (checkpt ? 33u : 37u)) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s (%zu bytes) from peer=%lld does not decode", command,
            len, (long long)p->id);
        return;
    }
    r.checkpt = checkpt;
    r.type = d[0];
    r.start = checkpt ? 0 : rd_u32le(d + 1);
    memcpy(r.stop_hash, d + (checkpt ? 1 : 5), 32);
    uint32_t max = checkpt                               ? UINT32_MAX
                   : strcmp(command, "getcfilters") == 0 ? CFILTERS_MAX_GETCFILTERS
                                                         : CFILTERS_MAX_GETCFHEADERS;
    if (prepare(bfi, cs, p, &r, max) == 0) {
        if (checkpt) {
            on_getcfcheckpt(bfi, p, &r);
        } else if (max == CFILTERS_MAX_GETCFILTERS) {
            on_getcfilters(bfi, p, &r);
        } else {
            on_getcfheaders(bfi, p, &r);
        }
    }
    free(r.hashes);
}
