/* BIP330's negotiation: see txrecon.h. */
#include "net/txrecon.h"

#include "net/net_impl.h"
#include "net/peer_sync.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/random.h"

enum { RECON_NONE = 0, RECON_PRE, RECON_REGISTERED };

void txrecon_on_version(struct peer *p, int common_version, int we_take_txs)
{
    if (!p->net->opt.txreconciliation || common_version < NET_WTXID_RELAY_VERSION ||
        !p->relay_txs || !we_take_txs || p->conn_type == CONN_BLOCK_RELAY ||
        p->conn_type == CONN_FEELER || p->conn_type == CONN_ADDR_FETCH) {
        return;
    }
    random_bytes((uint8_t *)&p->ps->recon_salt, sizeof(p->ps->recon_salt));
    p->ps->recon_state = RECON_PRE;
    LOG(LOG_CAT_TXRECONCILIATION, LOG_LVL_DEBUG, "Pre-register peer=%lld", (long long)p->id);
    struct buf b;
    buf_init(&b);
    buf_put_u32le(&b, TXRECON_VERSION);
    buf_put_u64le(&b, p->ps->recon_salt);
    net_send(p, "sendtxrcncl", &b);
    buf_clear(&b);
}

/* Disconnects p with Core's line: what, then ", disconnecting peer=N". */
static void refuse(struct peer *p, const char *what)
{
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s, disconnecting peer=%lld", what, (long long)p->id);
    net_peer_disconnect(p, what);
}

void txrecon_on_message(struct peer *p, const uint8_t *d, size_t len, int reject_incoming)
{
    if (!p->net->opt.txreconciliation) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "sendtxrcncl from peer=%lld ignored, as our node does not have txreconciliation "
            "enabled",
            (long long)p->id);
        return;
    }
    if (p->ps->handshake_done) {
        refuse(p, "sendtxrcncl received after verack");
        return;
    }
    if (reject_incoming) {
        refuse(p, "sendtxrcncl received to which we indicated no tx relay");
        return;
    }
    if (!p->relay_txs || p->conn_type == CONN_BLOCK_RELAY || p->conn_type == CONN_FEELER) {
        refuse(p, "sendtxrcncl received which indicated no tx relay to us");
        return;
    }
    if (len < 12) {
        net_malformed(p, "sendtxrcncl", len, "truncated reading version and salt");
        return;
    }
    uint32_t version = rd_u32le(d);
    if (p->ps->recon_state == RECON_NONE) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Ignore unexpected txreconciliation signal from peer=%lld",
            (long long)p->id);
        return;
    }
    if (p->ps->recon_state == RECON_REGISTERED) {
        refuse(p, "txreconciliation protocol violation (sendtxrcncl received from already "
                  "registered peer)");
        return;
    }
    /* The lower of the two versions; below 1 there is none. */
    if ((version < TXRECON_VERSION ? version : TXRECON_VERSION) < 1) {
        refuse(p, "txreconciliation protocol violation");
        return;
    }
    p->ps->recon_state = RECON_REGISTERED;
    LOG(LOG_CAT_TXRECONCILIATION, LOG_LVL_DEBUG, "Register peer=%lld (inbound=%d)",
        (long long)p->id, p->conn_type == CONN_INBOUND);
}

void txrecon_forget(struct peer *p)
{
    if (p->ps->recon_state != RECON_NONE) {
        p->ps->recon_state = RECON_NONE;
        LOG(LOG_CAT_TXRECONCILIATION, LOG_LVL_DEBUG, "Forget txreconciliation state of peer=%lld",
            (long long)p->id);
    }
}

void txrecon_on_verack(struct peer *p)
{
    if (!p->ps->wtxid_relay || p->ps->recon_state != RECON_REGISTERED) {
        txrecon_forget(p);
    }
}

int txrecon_registered(const struct peer *p)
{
    return p->ps->recon_state == RECON_REGISTERED;
}
