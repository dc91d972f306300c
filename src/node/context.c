/* The node's context and the tip it keeps for the waits (context.h). */
#include "node/context.h"

#include <string.h>

#include "util/rc.h"
#include "validation/chainstate.h"

void node_context_init(struct node_context *n)
{
    memset(n, 0, sizeof(*n));
    miner_options_default(&n->miner);
    n->mempool_dat_version = 2;
    atomic_init(&n->mempool_loaded, false);
    pthread_mutex_init(&n->tip.mu, NULL);
    pthread_cond_init(&n->tip.cv, NULL);
    n->tip.height = -1;
}

void node_context_clear(struct node_context *n)
{
    pthread_mutex_destroy(&n->tip.mu);
    pthread_cond_destroy(&n->tip.cv);
}

static void on_tip(void *arg, const struct block_index *tip)
{
    struct node_context *n = arg;
    pthread_mutex_lock(&n->tip.mu);
    if (tip) {
        memcpy(n->tip.hash, tip->hash, 32);
    }
    n->tip.height = tip ? tip->height : -1;
    pthread_cond_broadcast(&n->tip.cv);
    pthread_mutex_unlock(&n->tip.mu);
}

int node_notify_attach(struct node_context *n)
{
    const struct chainstate_listener l = {.tip_changed = on_tip, .ctx = n};
    int rc = chainstate_add_listener(n->cs, &l);
    if (rc == RC_OK) {
        on_tip(n, chainstate_tip(n->cs));
    }
    return rc;
}

void node_notify_detach(struct node_context *n)
{
    if (n->cs) {
        const struct chainstate_listener l = {.tip_changed = on_tip, .ctx = n};
        chainstate_remove_listener(n->cs, &l);
    }
}
