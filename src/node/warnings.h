/* The node's warnings (Bitcoin Core's node::Warnings): what getblockchaininfo,
 * getnetworkinfo and getmininginfo list under "warnings", each under an id so that it is
 * set and cleared as its condition comes and goes. Thread-safe (its own mutex, a leaf). */
#ifndef BITNODE_NODE_WARNINGS_H
#define BITNODE_NODE_WARNINGS_H

#include <pthread.h>
#include <stddef.h>

/* Core's kernel::Warning then node::Warning, in the order Core lists them. */
enum node_warning {
    NODE_WARNING_UNKNOWN_NEW_RULES,  /* an unknown versionbits deployment activated */
    NODE_WARNING_LARGE_WORK_INVALID, /* an invalid chain more than 6 blocks ahead */
    NODE_WARNING_CLOCK_OUT_OF_SYNC,  /* the peers' clocks disagree with ours */
    NODE_WARNING_FATAL,              /* a fatal internal error stopped validation */
    NODE_WARNING_COUNT
};

#define NODE_WARNING_MAX_LEN 1024

struct node_warnings {
    pthread_mutex_t mu;
    char msg[NODE_WARNING_COUNT][NODE_WARNING_MAX_LEN]; /* "" when unset; guarded by mu */
};

void node_warnings_init(struct node_warnings *w);
void node_warnings_destroy(struct node_warnings *w);

/** Sets warning id to msg (cut to NODE_WARNING_MAX_LEN - 1 bytes). Returns 1 when it was not
 *  set before (Core's Warnings::Set: only then does -alertnotify run), else 0 (the text is
 *  replaced all the same). */
int node_warnings_set(struct node_warnings *w, enum node_warning id, const char *msg);
/** Clears it. Returns 1 when it was set. */
int node_warnings_unset(struct node_warnings *w, enum node_warning id);

/** A net_options clock_warning callback (ctx: the node_warnings): msg sets
 *  NODE_WARNING_CLOCK_OUT_OF_SYNC, NULL clears it. */
void node_warnings_clock(void *ctx, const char *msg);

/** Copies the warnings set, in id order, into out[0..*n) (at most NODE_WARNING_COUNT). */
void node_warnings_get(struct node_warnings *w, char out[][NODE_WARNING_MAX_LEN], size_t *n);

#endif
