/* BIP37 serving (bloomrelay.h). Payloads (doc/files.md, "Bloom filter"):
 *
 *   filterload  := compact_size n  data[n]  u32 n_hash_funcs  u32 tweak  u8 flags
 *   filteradd   := compact_size n  element[n]                 (n <= 520)
 *   filterclear := (empty)
 *   merkleblock := header[80]  partial merkle tree
 */
#include "net/bloomrelay.h"

#include <stdlib.h>
#include <string.h>

#include "net/bloom.h"
#include "net/net_impl.h"
#include "net/peer_sync.h"
#include "primitives/serialize.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Core's MAX_SCRIPT_ELEMENT_SIZE: no matched data element can be longer. */
#define MAX_FILTERADD_SIZE 520

int bloomrelay_offered(const struct peer *p)
{
    return (net_local_services(p->net) & NODE_BLOOM) != 0 ||
           (p->perms & NET_PERM_BLOOMFILTER) == NET_PERM_BLOOMFILTER;
}

int bloomrelay_has_tx_relay(const struct peer *p)
{
    return p->ps->got_version && p->conn_type != CONN_BLOCK_RELAY &&
           p->conn_type != CONN_FEELER && (p->ps->ver.relay || bloomrelay_offered(p));
}

static void drop_filter(struct peer *p)
{
    if (p->ps->bloom) {
        bloom_filter_clear(p->ps->bloom);
        free(p->ps->bloom);
        p->ps->bloom = NULL;
    }
    p->bloom_filter_loaded = 0;
}

static void on_filterload(struct peer *p, const uint8_t *d, size_t len)
{
    struct bloom_filter f;
    char err[160];
    if (bloom_filter_parse(&f, d, len, err, sizeof(err)) != RC_OK) {
        net_malformed(p, "filterload", len, err);
        return;
    }
    if (!bloom_filter_within_limits(&f)) {
        /* There is no excuse for sending a too-large filter (Core). */
        bloom_filter_clear(&f);
        net_misbehaving(p, "too-large bloom filter");
        return;
    }
    if (!bloomrelay_has_tx_relay(p)) {
        bloom_filter_clear(&f);
        return;
    }
    drop_filter(p);
    p->ps->bloom = xmalloc(sizeof(*p->ps->bloom));
    *p->ps->bloom = f;
    p->bloom_filter_loaded = 1;
    p->relay_txs = 1;
    net_tx_relay_capacity_drop(p, "filterload", -1);
}

static void on_filteradd(struct peer *p, const uint8_t *d, size_t len)
{
    struct reader r;
    reader_init(&r, d, len);
    const uint8_t *el;
    size_t n;
    if (ser_get_varbytes(&r, &el, &n, "filteradd data") != RC_OK) {
        net_malformed(p, "filteradd", len, r.err);
        return;
    }
    /* An element longer than a script push can be, or one for a filter never loaded. */
    int bad = n > MAX_FILTERADD_SIZE;
    if (!bad && bloomrelay_has_tx_relay(p)) {
        if (p->ps->bloom) {
            bloom_filter_insert(p->ps->bloom, el, n);
        } else {
            bad = 1;
        }
    }
    if (bad) {
        net_misbehaving(p, "bad filteradd message");
    }
}

void bloomrelay_on_message(struct peer *p, const char *cmd, const uint8_t *d, size_t len)
{
    if (!bloomrelay_offered(p)) {
        /* BIP111: without NODE_BLOOM offered, a filter message ends the connection. */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "%s received despite not offering bloom services, disconnecting peer=%lld", cmd,
            (long long)p->id);
        net_peer_disconnect(p, "bloom filter message without NODE_BLOOM");
        return;
    }
    if (strcmp(cmd, "filterload") == 0) {
        on_filterload(p, d, len);
    } else if (strcmp(cmd, "filteradd") == 0) {
        on_filteradd(p, d, len);
    } else if (bloomrelay_has_tx_relay(p)) { /* filterclear: relay everything again */
        drop_filter(p);
        p->relay_txs = 1;
        net_tx_relay_capacity_drop(p, "filterclear", -1);
    }
}

void bloomrelay_serve_block(struct peer *p, const struct block *b)
{
    if (!p->ps->bloom) {
        return; /* no filter: no answer (Core) */
    }
    struct buf out;
    buf_init(&out);
    size_t *matched, n_matched;
    bloom_filter_merkleblock(p->ps->bloom, b, &out, &matched, &n_matched);
    net_send(p, "merkleblock", &out);
    /* The matched transactions follow, so that the client needs no round trip for them. */
    for (size_t i = 0; i < n_matched; i++) {
        buf_reset(&out);
        tx_serialize(&b->txs[matched[i]], &out, 0);
        net_send(p, "tx", &out);
    }
    free(matched);
    buf_clear(&out);
}

void bloomrelay_peer_gone(struct peer *p)
{
    drop_filter(p);
}
