/* The node's context and the tip it keeps for the waits (context.h). */
#include "node/context.h"

#include <stdlib.h>
#include <string.h>

#include "notify/command.h"
#include "util/hex.h"
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
    node_warnings_init(&n->warnings);
}

void node_context_clear(struct node_context *n)
{
    pthread_mutex_destroy(&n->tip.mu);
    pthread_cond_destroy(&n->tip.cv);
    node_warnings_destroy(&n->warnings);
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

/* -blocknotify, out of initial block download (Core runs it only in the POST_INIT state). */
static void on_settled(void *arg, const struct block_index *tip, int ibd)
{
    struct node_context *n = arg;
    if (ibd || !n->blocknotify || !*n->blocknotify) {
        return;
    }
    char hx[65];
    hex_encode_rev(hx, tip->hash, 32);
    char *cmd = notify_command_format(n->blocknotify, hx);
    notify_command_spawn(cmd);
    free(cmd);
}

/* Core's KernelNotifications::warningSet: a warning newly raised runs -alertnotify with its
 * text sanitized and single-quoted. */
static void on_warning(void *arg, enum chainstate_warning id, const char *msg)
{
    struct node_context *n = arg;
    enum node_warning w = id == CHAINSTATE_WARNING_UNKNOWN_RULES ? NODE_WARNING_UNKNOWN_NEW_RULES
                                                                 : NODE_WARNING_LARGE_WORK_INVALID;
    if (!msg) {
        node_warnings_unset(&n->warnings, w);
        return;
    }
    if (node_warnings_set(&n->warnings, w, msg) && n->alertnotify && *n->alertnotify) {
        char safe[NODE_WARNING_MAX_LEN + 2];
        safe[0] = '\'';
        notify_sanitize(safe + 1, NODE_WARNING_MAX_LEN, msg);
        strcat(safe, "'");
        char *cmd = notify_command_format(n->alertnotify, safe);
        notify_command_spawn(cmd);
        free(cmd);
    }
}

static struct chainstate_listener kernel_listener(struct node_context *n)
{
    const struct chainstate_listener l = {
        .tip_changed = on_tip, .tip_settled = on_settled, .warning = on_warning, .ctx = n};
    return l;
}

int node_notify_attach(struct node_context *n)
{
    const struct chainstate_listener l = kernel_listener(n);
    int rc = chainstate_add_listener(n->cs, &l);
    if (rc == RC_OK) {
        on_tip(n, chainstate_tip(n->cs));
    }
    return rc;
}

void node_notify_detach(struct node_context *n)
{
    if (n->cs) {
        const struct chainstate_listener l = kernel_listener(n);
        chainstate_remove_listener(n->cs, &l);
    }
}
