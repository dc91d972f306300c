/* The optional indexes: which ones the options turn on, and their start and stop. */
#ifndef BITNODE_NODE_INDEXES_H
#define BITNODE_NODE_INDEXES_H

#include <stddef.h>

struct args;
struct node_context;

/** -blockfilterindex as Core reads it: 0 (the default) none; "" or 1 every filter type;
 *  else the types named, of which BIP158's "basic" is the only one. *basic gets whether the
 *  basic filters are kept. 0, or RC_INVALID with Core's "Unknown -blockfilterindex value X."
 *  in err. */
int node_blockfilter_types(const struct args *a, int *basic, char *err, size_t err_len);

/** The index options together, as Core checks them at start-up: -blockfilterindex's value
 *  (node_blockfilter_types), and -peerblockfilters only with the basic filters ("Cannot set
 *  -peerblockfilters without -blockfilterindex."). 0, or RC_INVALID with err. */
int node_check_index_options(const struct args *a, char *err, size_t err_len);

/** Starts the indexes the options ask for over n->cs (indexes/ under n->net_dir; wiped
 *  first when reindex is set, as -reindex rebuilds them). Call before the validation thread
 *  starts. 0, or an error with a message in err. */
int node_indexes_start(struct node_context *n, int reindex, char *err, size_t err_len);
/** Stops them (what they indexed is kept). Call after the validation thread stopped. */
void node_indexes_stop(struct node_context *n);

#endif
