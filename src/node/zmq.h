/* The ZMQ publishers' wiring: the -zmqpub* options into notifiers, their listeners, and the
 * end (notify/zmq.h). Without ZMQ compiled in (--disable-zmq) the options are ignored, as by
 * a Core built without it, and the log says so. */
#ifndef BITNODE_NODE_ZMQ_H
#define BITNODE_NODE_ZMQ_H

#include <stddef.h>

#include "node/context.h"

/** Core's CheckHostPortOptions for -zmqpub*: each value must split into host and port (a
 *  port, when there is one, in 1..65535) or start with "unix:". Returns 0, or RC_INVALID with
 *  err "Invalid port specified in -zmqpubhashblock: '<value>'". */
int node_zmq_check(const struct args *a, char *err, size_t err_len);

/** Makes the publishers of -zmqpub* (none given: nothing) and adds their listeners to n->cs
 *  and n->mempool (call before the validation thread starts, before the mempool's own
 *  listener). A publisher that cannot bind turns ZMQ off with a warning, as in Core, and
 *  start-up goes on. Returns 0, or RC_TOO_LARGE (no listener slot). */
int node_zmq_start(struct node_context *n);
/** Removes the listeners (after the validation thread stopped), sends what is queued and
 *  closes the sockets. */
void node_zmq_stop(struct node_context *n);

#endif
