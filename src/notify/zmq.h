/* ZMQ notifications (Bitcoin Core's -zmqpub* publishers, doc/zmq.md there): blocks and
 * transactions as the chain and the mempool change, to subscribers such as indexers, Lightning
 * nodes and message-bus bridges.
 *
 * Each -zmqpub<topic>=<address> is one notifier with its own 4-byte little-endian message
 * counter; notifiers on the same address string share one PUB socket. Every message is three
 * frames: the topic, the body, the counter. Bodies: hashblock and hashtx the hash in display
 * order; rawblock the block as stored; rawtx the transaction with its witness; sequence the
 * hash in display order and a label, 'C'/'D' for a block connected or disconnected, 'A'/'R'
 * for a transaction added to or removed from the mempool (not for a block) followed by the
 * mempool sequence as 8 bytes little-endian.
 *
 * When (Core's validation interface): a block's transactions (hashtx, rawtx) then 'C' after
 * each step of the chain, which is one block as blocks arrive and a whole reorganisation at
 * its end; a disconnected block's transactions then 'D' at once; hashblock and rawblock for
 * the tip after a step that connected blocks, out of initial block download; a mempool
 * addition hashtx, rawtx and 'A'; a removal 'R'.
 *
 * Publishing never blocks validation: the listeners only queue events (hashes and txids, a
 * mempool transaction's bytes); the thread "zmqpub" reads blocks from disk when a raw topic
 * wants them and sends. */
#ifndef BITNODE_NOTIFY_ZMQ_H
#define BITNODE_NOTIFY_ZMQ_H

#include <stddef.h>

struct chainstate;
struct mempool;

/* The topics, in Core's notifier order (getzmqnotifications lists them so). */
enum notify_zmq_topic {
    NOTIFY_ZMQ_HASHBLOCK,
    NOTIFY_ZMQ_HASHTX,
    NOTIFY_ZMQ_RAWBLOCK,
    NOTIFY_ZMQ_RAWTX,
    NOTIFY_ZMQ_SEQUENCE,
    NOTIFY_ZMQ_TOPICS
};

/** "pubhashblock", "pubhashtx", ... (getzmqnotifications' type). */
const char *notify_zmq_type_name(enum notify_zmq_topic t);
/** "hashblock", "hashtx", ... (the option is "zmqpub" + this; the message's topic frame). */
const char *notify_zmq_topic_name(enum notify_zmq_topic t);

struct notify_zmq_endpoint {
    enum notify_zmq_topic topic;
    char *address; /* "unix:" already rewritten to "ipc://" (owned) */
    int hwm;       /* outbound high water mark */
};

struct notify_zmq;

/** Creates the publishers (one per endpoint, in the order given: sort them by topic first),
 *  binding each address. cs: read for blocks when a raw topic asks (outlives z).
 *  Returns 0 with *out; or RC_IO when a socket cannot be created or bound, with err naming
 *  the notifier and why (Core then runs without ZMQ: the caller decides). */
int notify_zmq_new(struct notify_zmq **out, const struct notify_zmq_endpoint *eps, size_t n,
                   struct chainstate *cs, char *err, size_t err_len);

/** Adds the chainstate and mempool listeners (before the validation thread starts; put it
 *  before the mempool's own chainstate listener, so that a block's 'D' comes before its
 *  transactions come back to the pool as 'A'). Returns 0 or RC_TOO_LARGE. */
int notify_zmq_attach(struct notify_zmq *z, struct chainstate *cs, struct mempool *mp);
/** Removes the chainstate listener (after the validation thread stopped). */
void notify_zmq_detach(struct notify_zmq *z, struct chainstate *cs);

/** The notifiers (getzmqnotifications): *n of them, borrowed. */
const struct notify_zmq_endpoint *notify_zmq_endpoints(const struct notify_zmq *z, size_t *n);

/** Sends what is queued, stops the thread, closes the sockets (linger 0, so that a restarted
 *  node binds the same ports at once). NULL: no-op. */
void notify_zmq_free(struct notify_zmq *z);

#endif
