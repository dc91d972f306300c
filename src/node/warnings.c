/* The node's warnings (warnings.h). */
#include "node/warnings.h"

#include <stdio.h>
#include <string.h>

void node_warnings_init(struct node_warnings *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->mu, NULL);
}

void node_warnings_destroy(struct node_warnings *w)
{
    pthread_mutex_destroy(&w->mu);
}

int node_warnings_set(struct node_warnings *w, enum node_warning id, const char *msg)
{
    pthread_mutex_lock(&w->mu);
    int was = w->msg[id][0] != 0;
    snprintf(w->msg[id], sizeof(w->msg[id]), "%s", msg);
    pthread_mutex_unlock(&w->mu);
    return !was;
}

int node_warnings_unset(struct node_warnings *w, enum node_warning id)
{
    pthread_mutex_lock(&w->mu);
    int was = w->msg[id][0] != 0;
    w->msg[id][0] = 0;
    pthread_mutex_unlock(&w->mu);
    return was;
}

void node_warnings_clock(void *ctx, const char *msg)
{
    struct node_warnings *w = ctx;
    if (msg) {
        node_warnings_set(w, NODE_WARNING_CLOCK_OUT_OF_SYNC, msg);
    } else {
        node_warnings_unset(w, NODE_WARNING_CLOCK_OUT_OF_SYNC);
    }
}

void node_warnings_get(struct node_warnings *w, char out[][NODE_WARNING_MAX_LEN], size_t *n)
{
    *n = 0;
    pthread_mutex_lock(&w->mu);
    for (int i = 0; i < NODE_WARNING_COUNT; i++) {
        if (w->msg[i][0]) {
            memcpy(out[(*n)++], w->msg[i], NODE_WARNING_MAX_LEN);
        }
    }
    pthread_mutex_unlock(&w->mu);
}
