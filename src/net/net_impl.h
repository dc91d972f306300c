/* The transport's insides (net.c: connections, framing, timers, bans, validator jobs, the
 * RPC side), and what the protocol (sync.c, txrelay.c, cmpctrelay.c) may use of it: the peers,
 * sending, disconnecting and punishing, the clock, handing jobs to the validator. The
 * transport reaches the protocol only through the events table it is given (struct
 * net_events); service.c makes both and wires them. Everything here belongs to the net
 * thread, except where a field says otherwise.
 */
#ifndef BITNODE_NET_NET_IMPL_H
#define BITNODE_NET_NET_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "consensus/params.h"
#include "net/net.h"
#include "net/timeoffsets.h"
#include "net/uploadtarget.h"
#include "net/protocol.h"
#include "net/socks5.h"
#include "util/buf.h"
#include "validation/validator.h"

struct event_base;
struct event;
struct bufferevent;
struct evconnlistener;
struct addrman;
struct peer_sync;
struct v2t;

/* Message types counted per peer (getpeerinfo's bytessent_per_msg); the last is "*other*". */
enum {
    NET_N_MSG_TYPES = 33,
};
extern const char *const net_msg_type_names[NET_N_MSG_TYPES];
int net_msg_type_index(const char *command);

#define NET_MAX_BLOCKS_IN_FLIGHT 16      /* per peer (Core's MAX_BLOCKS_IN_TRANSIT_PER_PEER) */
#define NET_BLOCK_DOWNLOAD_WINDOW 1024   /* blocks past the last common block */
#define NET_MAX_PENDING_JOBS 24          /* validator jobs of one peer before its reads pause */
#define NET_MAX_PENDING_BYTES (8u << 20) /* ... or that many bytes of them */
#define NET_MAX_BLOCKS_TO_ANNOUNCE 8     /* more new blocks than that: inv instead of headers */
#define NET_SEND_BUFFER 2000000          /* serving pauses while this much waits to be sent */
#define NET_PING_INTERVAL_US (120 * 1000000LL)
#define NET_TIMEOUT_INTERVAL_S (20 * 60)
#define NET_STALL_TIMEOUT_US (2 * 1000000LL)
#define NET_STALL_TIMEOUT_MAX_US (64 * 1000000LL)
#define NET_ADD_NEXT_SEEDNODE_S 10        /* Core: another -seednode after this many seconds */
#define NET_SEED_OUTBOUND_THRESHOLD 2     /* ... while fewer full-relay outbound peers */
#define NET_BLOCK_TIMEOUT_BASE_US (600 * 1000000LL)
#define NET_BLOCK_TIMEOUT_PER_PEER_US (300 * 1000000LL)
#define NET_MAX_OUTBOUND_FULL_RELAY 8
#define NET_MAX_BLOCK_RELAY_ONLY 2
#define NET_MAX_FEELER 1
#define NET_MAX_ADDNODE 8

struct peer {
    struct net *net;
    int64_t id;
    struct bufferevent *bev;
    struct net_addr addr;
    char addr_str[NET_ADDR_STR_LEN];
    char bind_str[NET_ADDR_STR_LEN];
    char added_name[NET_ADDR_STR_LEN]; /* the -connect / addnode string it was opened for */
    int conn_type;
    /* Core's CNode::addr beyond the address: the services and time addrman or anchors.dat
     * gave when it was dialled (0 and 0 otherwise), written to anchors.dat. */
    uint64_t addr_services;
    int64_t addr_time;
    uint32_t perms;
    int inbound_onion;    /* accepted on a -bind=...=onion listener (Core's IsInboundOnion) */
    int connected;        /* outbound: the TCP connect finished */
    struct socks5 *socks; /* through -proxy: the SOCKS5 exchange, until the tunnel is up */

    int64_t conn_time, last_send, last_recv; /* seconds */
    uint64_t bytes_sent, bytes_recv;
    uint64_t sent_per_msg[NET_N_MSG_TYPES], recv_per_msg[NET_N_MSG_TYPES];

    /* Framing. */
    struct net_msg_header hdr;
    int have_hdr;
    size_t in_counted; /* v1: bytes of the input buffer already in bytes_recv */
    /* BIP324 (v2transport.h): inbound when we offer NODE_P2P_V2, outbound when we tried v2;
     * NULL for a plain v1 connection. Once it finds a v1 peer the v1 framing above reads. */
    struct v2t *v2;
    int v2_requested; /* outbound: opened with v2 (a v1 retry has 0) */

    /* What eviction weighs (Core keeps these in CNode too): set by the protocol. */
    int64_t last_block, last_tx; /* seconds: the last new block / transaction it gave us */
    int64_t min_ping_us;         /* its best ping round trip, -1 before the first pong */
    int relay_txs;               /* its version asked for transactions, or it loaded or
                                    cleared a bloom filter since */
    int bloom_filter_loaded;     /* it has a BIP37 filter loaded */
    int relevant_services;       /* its version offered every service we want */
    int prefer_evict;            /* accepted while discouraged: evicted first */

    /* Validator jobs of this peer not yet handled, and their payloads' bytes. */
    int pending_jobs;
    int ordered_jobs; /* of them, in_order ones: reads pause (PAUSE_ORDER) while any is out */
    size_t pending_bytes;
    unsigned read_paused; /* why reads are off: PAUSE_* bits */

    /* The protocol's half (struct peer_sync, sync.c's): made by the connected event, freed
     * by peer_gone. The transport never reads it. */
    struct peer_sync *ps;

    int disconnect;
    struct peer *next;
};

struct net_job {
    struct validator_job job;
    struct net *net;
    int64_t peer_id;
    int is_block;
    int is_tx;     /* a transaction (txrelay.c's, larger struct) */
    uint8_t *data; /* owned */
    size_t len;
    uint8_t hash[32];       /* block: its hash; headers: the last header's hash */
    uint8_t first_prev[32]; /* headers: the first header's parent */
    size_t n_headers;
    int presync; /* headers released by a pre-sync: no getheaders follows */
    int via_compact; /* block: rebuilt from a cmpctblock (its consensus failures go unpunished) */
    int in_order;    /* the peer's next message waits for this job's verdict (and what the
                        job_done event does with it), as Core handles a message whole */
    struct net_job *next;
};

struct net_call_item {
    void (*fn)(struct net *n, void *ctx);
    void *ctx;
    int done;
    struct net_call_item *next;
};

struct net_ban {
    struct net_subnet subnet;
    int64_t created, until;
};

struct added_node {
    char name[NET_ADDR_STR_LEN];
    int from_connect; /* -connect (else -addnode / addnode RPC) */
    int use_v2;       /* try the v2 transport (a v1 peer gets a v1 retry) */
    int64_t next_try;
    int64_t peer_id; /* connected (or connecting) peer, -1 if none */
};

/* What the transport tells the protocol (Core's NetEventsInterface), each on the net thread
 * with ctx. Every function is set. */
struct sync;

struct net_events {
    void *ctx;
    /* A new peer: inbound (accepted) or outbound (its connection begun, nothing sent yet). */
    void (*connected)(void *ctx, struct peer *p);
    /* An outbound peer's connection is up (and the proxy's tunnel through it): we speak
     * first. */
    void (*opened)(void *ctx, struct peer *p);
    /* One complete message from p, its checksum checked. */
    void (*message)(void *ctx, struct peer *p, const char *command, const uint8_t *payload,
                    size_t len);
    /* p's send buffer drained below half of NET_SEND_BUFFER: more of what it asked for may
     * go (and reads paused for PAUSE_GETDATA may go on). */
    void (*send_room)(void *ctx, struct peer *p);
    /* A job handed over with net_submit is back (or was never taken: the validator stopped).
     * The handler owns j. */
    void (*job_done)(void *ctx, struct net_job *j);
    /* The jobs that came back together have all been handed to job_done. */
    void (*jobs_done)(void *ctx);
    /* The timer, every 100 ms. */
    void (*tick)(void *ctx);
    /* p is being freed (disconnected, or the service stops): its protocol state goes. */
    void (*peer_gone)(void *ctx, struct peer *p);
};

struct net {
    struct net_options opt;
    struct validator *val;
    struct chainstate *cs;
    const struct chain_params *p;
    uint64_t local_services;
    char user_agent[NET_MAX_SUBVERSION + 1];

    struct event_base *base;
    pthread_t thread;
    int thread_started;
    struct evconnlistener *listeners[8];
    struct net_bind bound[8];
    size_t n_listeners;
    uint16_t port;
    struct event *done_ev, *call_ev, *timer_ev, *cleanup_ev;
    struct net_events events; /* the protocol (net_set_events) */
    /* The protocol, made and freed with the service by service.c, which alone reads this:
     * the transport reaches it only through events. */
    struct sync *sync;
    /* The outbound peers' clock offsets (sync.c adds one per version message), the net
     * thread's. */
    struct timeoffsets time_offsets;

    /* Filled by other threads. */
    pthread_mutex_t q_mu; /* a leaf */
    pthread_cond_t call_cv;
    struct net_job *done_head;
    struct net_call_item *calls;
    int stopping; /* guarded by q_mu */
    int jobs_out; /* guarded by q_mu: jobs the validator has and has not finished */

    struct peer *peers;
    int64_t next_peer_id;
    struct net_job *waiting_head, *waiting_tail; /* not yet taken by the validator */
    uint64_t total_recv, total_sent;
    struct upload_target upload; /* -maxuploadtarget's budget */

    struct net_ban *bans;
    size_t n_bans;
    int bans_dirty;
    struct net_addr discouraged[256]; /* a ring of recently discouraged hosts */
    uint64_t group_key[2];            /* keys the network groups of eviction */
    size_t n_discouraged;

    struct added_node *added;
    size_t n_added;

    int active;
    int64_t mocktime;

    /* -proxy (SOCKS5) for outbound connections, -onion for .onion names. */
    int have_proxy, have_onion_proxy;
    struct net_addr proxy, onion_proxy;
    char proxy_str[NET_ADDR_STR_LEN], onion_proxy_str[NET_ADDR_STR_LEN];
    uint64_t proxy_stream; /* -proxyrandomize: a fresh user name per connection */

    /* Our own addresses (localaddr.h): -externalip, routable binds, -discover's. */
    struct localaddr *local;

    /* Addresses heard of (addrman.h), saved in peers.dat. */
    struct addrman *am;
    int64_t next_addr_dump;   /* when peers.dat is written next (every 15 minutes) */
    int64_t next_outbound_us; /* when the next automatic connection may be opened */
    int64_t start_time;       /* for the fixed seeds' one-minute wait */
    int fixed_seeds_added;               /* 0: not yet; 1: now (logged why); 2: added */
    pthread_t dns_thread;
    int dns_started;
    size_t addrs_at_start;               /* addresses known when the DNS thread started */
    struct addrman_addr *anchors;        /* from anchors.dat, dialled first, the last first */
    size_t n_anchors;
    char (*seednodes)[NET_ADDR_STR_LEN]; /* -seednode, shuffled at start */
    size_t n_seednodes;
    size_t seeds_left;     /* seednodes[0, seeds_left) not yet asked, the last one next */
    int add_addr_fetch;    /* ask the next seednode at the next connection round */
    int64_t seed_timer;    /* when the last one was asked (or the start) */
};

/* net.c */

/** The transport: binds its listening sockets (so a port in use fails start-up with Core's
 *  message in err), loads the ban list and peers.dat. 0, or RC_INVALID / RC_IO with err.
 *  Nothing runs until net_start, and not before net_set_events. */
int net_transport_new(struct net **out, const struct net_options *opt, char *err,
                      size_t err_len);
/** The protocol the transport reports to (copied). Once, before net_start (Core's CConnman
 *  takes its NetEventsInterface at Init, after the PeerManager was made with it). */
void net_set_events(struct net *n, const struct net_events *ev);
/** Stops the thread, takes back the validator's jobs, saves the ban list and peers.dat,
 *  frees every peer (peer_gone for each) and n. NULL: no-op. */
void net_transport_free(struct net *n);
/** The transport's half of getpeerinfo: *out (caller frees with net_peer_stats_free) holds
 *  the connected peers in id order with what the transport knows filled in (the rest
 *  zero). Net thread. */
void net_transport_peers(struct net *n, struct net_peer_stats **out, size_t *count);
int64_t net_now(const struct net *n);    /* seconds (mock time when set) */
int64_t net_now_us(const struct net *n); /* microseconds since the epoch (mock time when set) */
/* Frames and queues a message to p (nothing once p is disconnecting). */
void net_send(struct peer *p, const char *command, const struct buf *payload);
void net_send_empty(struct peer *p, const char *command);
/* 1 while p's v2 transport has not finished its handshake or found a v1 peer (getpeerinfo's
 * "detecting"). */
int net_peer_detecting(const struct peer *p);
/* p's transport as Core names it in logs and getpeerinfo: "v1", "v2" or "detecting". */
const char *net_peer_transport_name(const struct peer *p);
/* Marks p for disconnection (freed from the loop, peer_gone then). */
void net_peer_disconnect(struct peer *p, const char *why);
/* Core's Misbehaving + MaybeDiscourageAndDisconnect: logs, then disconnects the peer unless
 * it has noban or is a manual connection, and discourages its address unless local. */
void net_misbehaving(struct peer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A message that does not decode (Core: its deserializer throws, ProcessMessages catches):
 *  logged under net as Core's "ProcessMessages(type, N bytes): Exception '...' caught" and
 *  otherwise ignored; the peer is neither punished nor disconnected. */
void net_malformed(const struct peer *p, const char *type, size_t len, const char *err);
/* The connected peer of that id (not one being disconnected), or NULL. */
struct peer *net_find_peer(struct net *n, int64_t id);
enum { PAUSE_JOBS = 1, PAUSE_GETDATA = 2, PAUSE_ORDER = 4 };
/* Stops (pause) or resumes reading from p for one reason; reads go on when none is left.
 * PAUSE_JOBS is the transport's own; the protocol sets PAUSE_GETDATA while a getdata is
 * being answered (Core reads no further until then). */
void net_pause_reads(struct peer *p, unsigned why, int pause);
/* Queues a job for the validator (submitted now if its queue has room); it comes back
 * through the job_done event. j->peer_id's reads pause while too many of its jobs are out,
 * and while an in_order job is out (reads go on after its job_done event). */
void net_submit(struct net *n, struct net_job *j);
/* Bytes waiting in p's send buffer. */
size_t net_send_buffered(const struct peer *p);
/* Core's EvictTxPeerIfFull: when more inbound peers relay transactions than
 * -inboundrelaypercent of the inbound slots allows, marks one of them (not protect_id, -1:
 * none; evict.h's choice among them) to go. 1 if under the cap or one went, 0 if every one
 * is protected (then the caller drops the newcomer). */
int net_evict_tx_peer_if_full(struct net *n, int64_t protect_id);
/* Core's MaybeDisconnectForTxRelayCapacity, after a message (msg_type) that made inbound p
 * relay transactions (its version, a filterload or filterclear): another relayer goes (not
 * protect_id, -1: none), or p itself is dropped, with Core's "failed to find a tx-relaying
 * eviction candidate" line, when every other one is protected. 1 if p was dropped. */
int net_tx_relay_capacity_drop(struct peer *p, const char *msg_type, int64_t protect_id);

#endif
