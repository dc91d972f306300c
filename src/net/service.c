/* The P2P service (net.h) as its users see it: a transport (net.c) with the protocol
 * (sync.c) on top. This file makes both and wires the protocol in as the transport's events
 * table, so that net.c calls nothing above it; the calls that need both halves (a peer's
 * statistics, pings, a block fetch, transaction relay) are joined here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "net/net_impl.h"
#include "net/sync.h"
#include "util/rc.h"

int net_new(struct net **out, const struct net_options *opt, char *err, size_t err_len)
{
    struct net *n;
    int rc = net_transport_new(&n, opt, err, err_len);
    if (rc != RC_OK) {
        return rc;
    }
    struct sync *s;
    rc = sync_new(&s, n);
    if (rc != RC_OK) {
        snprintf(err, err_len, "cannot create the P2P protocol state");
        net_transport_free(n);
        return rc;
    }
    struct net_events ev;
    sync_events(s, &ev);
    net_set_events(n, &ev);
    n->sync = s;
    *out = n;
    return RC_OK;
}

void net_free(struct net *n)
{
    if (!n) {
        return;
    }
    struct sync *s = n->sync;
    net_transport_free(n); /* each peer's peer_gone event still reaches s */
    sync_free(s);
}

void net_get_peers(struct net *n, struct net_peer_stats **out, size_t *count)
{
    net_transport_peers(n, out, count);
    for (size_t i = 0; i < *count; i++) {
        sync_peer_stats(n->sync, &(*out)[i]);
    }
}

void net_ping_all(struct net *n)
{
    sync_ping_all(n->sync);
}

int net_fetch_block(struct net *n, int64_t peer_id, const uint8_t hash32[32], char *err,
                    size_t err_len)
{
    return sync_fetch_block(n->sync, peer_id, hash32, err, err_len);
}

void net_mock_scheduler(struct net *n, int64_t delta_s)
{
    sync_mock_scheduler(n->sync, delta_s);
}

void net_relay_transaction(struct net *n, const uint8_t txid32[32], const uint8_t wtxid32[32])
{
    if (n) {
        sync_relay_transaction(n->sync, txid32, wtxid32);
    }
}

int net_send_message(struct net *n, int64_t peer_id, const char *command,
                     const struct buf *payload)
{
    struct peer *p = net_find_peer(n, peer_id);
    if (!p || !sync_handshake_done(p)) {
        return RC_NOT_FOUND;
    }
    net_send(p, command, payload);
    return RC_OK;
}

void net_inv_buckets(struct net *n, unsigned *rate, struct invbucket_info *in,
                     struct invbucket_info *out)
{
    sync_inv_buckets(n->sync, rate, in, out);
}

void net_orphans(struct net *n, struct net_orphan **out, size_t *count)
{
    sync_orphans(n->sync, out, count);
}

void net_orphans_free(struct net_orphan *v, size_t count)
{
    for (size_t i = 0; v && i < count; i++) {
        free(v[i].raw);
    }
    free(v);
}
