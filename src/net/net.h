/* The P2P service: every peer socket on one libevent loop on the net thread, the version
 * handshake, headers-first sync, parallel block download, serving headers and blocks, and
 * announcing new tips. Blocks and headers from peers go to the validation thread as jobs
 * (validator.h), the same path as an import; the net thread never blocks on them.
 *
 * One owner: the net thread owns every peer, the ban list and the added-node list. Other
 * threads (RPC) ask through the functions below, which run their work on the net thread
 * and wait for it (net_call), or copy out a snapshot.
 *
 * Lock order: the chain's read lock is taken by the net thread inside nothing else of its
 * own; the completion and call queues' mutexes are leaves.
 */
#ifndef BITNODE_NET_NET_H
#define BITNODE_NET_NET_H

#include <stddef.h>
#include <stdint.h>

#include "net/localaddr.h"
#include "net/netaddr.h"

struct validator;
struct chainstate;
struct net;

/* Permission flags of -whitelist / -whitebind (Core's NetPermissionFlags). */
enum net_permission {
    NET_PERM_BLOOMFILTER = 1u << 1,
    NET_PERM_RELAY = 1u << 3,
    NET_PERM_FORCERELAY = (1u << 2) | NET_PERM_RELAY,
    NET_PERM_DOWNLOAD = 1u << 6,
    NET_PERM_NOBAN = (1u << 4) | NET_PERM_DOWNLOAD,
    NET_PERM_MEMPOOL = 1u << 5,
    NET_PERM_ADDR = 1u << 7,
    NET_PERM_IMPLICIT = 1u << 31,
};

#define NET_DIR_IN 1u  /* a -whitelist entry for inbound connections */
#define NET_DIR_OUT 2u /* for manual outbound ones */
/** Parses "perm1,perm2@rest" (or "rest" alone: implicit permissions) as -whitelist and
 *  -whitebind take it: *perms, and *rest points into s; *dirs (-whitelist's; NULL for
 *  -whitebind, which refuses "out") the directions "in" and "out" name, NET_DIR_IN when
 *  neither. 0, or RC_INVALID with Core's err ("Invalid P2P permission: 'x'", "Only direction
 *  was set, no permissions: 's'", "whitebind may only be used for incoming connections
 *  (\"out\" was passed)"). */
int net_permissions_parse(const char *s, uint32_t *perms, unsigned *dirs, const char **rest,
                          char *err, size_t err_len);
/** Appends Core's names of perms ("noban", "download", ...) to names[] (up to max); the
 *  count. */
size_t net_permission_names(uint32_t perms, const char **names, size_t max);

enum net_conn_type {
    CONN_INBOUND = 0,
    CONN_OUTBOUND_FULL_RELAY,
    CONN_MANUAL,
    CONN_FEELER,
    CONN_BLOCK_RELAY,
    CONN_ADDR_FETCH,
};
/** Core's names: "inbound", "outbound-full-relay", "manual", ... */
const char *net_conn_type_name(int type);

struct net_bind {
    struct net_addr addr;
    uint32_t perms; /* -whitebind: its permissions; -bind: 0 */
    int onion;      /* -bind=...=onion (Core's Tor service target) */
};

struct net_whitelist {
    struct net_subnet subnet;
    uint32_t perms;
    unsigned dirs; /* NET_DIR_IN, NET_DIR_OUT */
};

struct blockfilter_index;

struct net_options {
    struct validator *val;        /* borrowed: blocks and headers go to it */
    int listen;                   /* -listen */
    int discover;                 /* -discover: our interfaces' and bound addresses are ours */
    uint16_t listen_port;         /* Core's GetListenPort: the port our addresses advertise */
    const struct net_addr *externalip; /* -externalip, their ports resolved (copied) */
    size_t n_externalip;
    const struct net_bind *binds; /* -bind / -whitebind; none: every interface on port */
    size_t n_binds;
    uint16_t port;              /* -port */
    uint16_t onion_port;        /* port + 1: Core's default Tor service target, 127.0.0.1 */
    const char *const *connect; /* -connect: only these, no automatic connections */
    size_t n_connect;
    const char *const *addnode; /* -addnode */
    size_t n_addnode;
    const char *const *seednode; /* -seednode: asked for addresses, then left */
    size_t n_seednode;
    const struct net_whitelist *whitelist; /* -whitelist (inbound) */
    size_t n_whitelist;
    /* What a -whitelist or -whitebind without permissions grants besides noban and mempool
     * (Core's legacy whitelisting): -whitelistrelay's relay, -whitelistforcerelay's
     * forcerelay. */
    int whitelist_relay, whitelist_forcerelay;
    int max_connections;     /* -maxconnections */
    int inbound_relay_percent; /* -inboundrelaypercent: the share (0-100) of the inbound slots
                                  transaction-relaying peers may take */
    int64_t max_tip_age;     /* -maxtipage, seconds */
    int dnsseed;             /* -dnsseed (no DNS lookups on a test machine: 0) */
    int fixedseeds;          /* -fixedseeds */
    int automatic;           /* open outbound connections from the address manager (no -connect,
                                no -noconnect, -maxconnections > 0) */
    const char *chain;       /* the network's name, for its seeds ("main", "test", ...) */
    int network_active;      /* -networkactive */
    uint32_t onlynet;        /* -onlynet: a bit per enum net_network; 0: all */
    const char *proxy;       /* -proxy host:port (SOCKS5), or NULL */
    const char *onion_proxy; /* -onion host:port for .onion names (NULL: -proxy's) */
    int proxy_randomize;     /* -proxyrandomize: new credentials per connection (Tor streams) */
    const char *net_dir;     /* where banlist.json and peers.dat live */
    int64_t peer_timeout;    /* -peertimeout, seconds */
    int64_t bantime;         /* -bantime, seconds */
    const char *user_agent_comment; /* -uacomment, joined by "; " (or NULL) */
    struct mempool *mempool;        /* borrowed: relayed transactions go to it (NULL: none) */
    int blocks_only;                /* -blocksonly: no transaction relay */
    unsigned tx_send_rate; /* -txsendrate: transactions a second announced to inbound peers
                              (0: Core's default, 14) */
    int deterministic_addrman;      /* -test=addrman: a fixed bucket key and PRNG seed */
    uint64_t max_upload;            /* -maxuploadtarget, bytes per 24 hours (0: none) */
    int txreconciliation;           /* -txreconciliation: BIP330's negotiation (txrecon.c) */
    int cjdns_reachable;            /* -cjdnsreachable: fc00::/8 addresses given to the
                                       address manager by RPC are CJDNS ones */
    /* -peerblockfilters: the block filter index BIP157 requests are answered from (borrowed;
     * NODE_COMPACT_FILTERS is offered), or NULL. */
    struct blockfilter_index *block_filters;
    /* -prune: the node keeps only recent blocks; it offers NODE_NETWORK_LIMITED without
     * NODE_NETWORK and serves only the last 288 blocks (Core's rules). */
    int pruned;
    /* -v2transport: BIP324 offered (NODE_P2P_V2), inbound detected, outbound tried first
     * (a v1 peer gets a v1 retry). */
    int v2transport;
    /* -peerbloomfilters: BIP37 bloom filters served (NODE_BLOOM offered to every peer; the
     * bloomfilter permission offers it to one). */
    int peer_bloom_filters;
    /* -capturemessages: every message sent and processed is appended, in Core's format, to
     * <net_dir>/message_capture/<addr_port>/msgs_{sent,recv}.dat (doc/files.md). */
    int capture_messages;
    /* Core's clock warning (node::Warning::CLOCK_OUT_OF_SYNC): called on the net thread after
     * each outbound peer's version message with the warning's text while the median of the
     * last 50 outbound clock offsets is more than 10 minutes off, with NULL when it is not
     * (timeoffsets.h). NULL: no warnings. */
    void (*clock_warning)(void *ctx, const char *msg);
    void *clock_warning_ctx;
};

/** Creates the service and binds its listening sockets (so a port in use fails start-up
 *  with Core's message in err). 0, or RC_INVALID / RC_IO with err. Nothing runs yet. */
int net_new(struct net **out, const struct net_options *opt, char *err, size_t err_len);
/** Starts the net thread: outbound connections, accepting, syncing. 0 or RC_IO. */
int net_start(struct net *n);
/** Disconnects everyone, stops the thread, saves the ban list and frees n. NULL: no-op.
 *  Call before the validator is freed. */
void net_free(struct net *n);

/** Runs fn(n, ctx) on the net thread and waits for it. RC_STOPPED if the thread is not
 *  running (fn is not called). For the RPC methods (rpc/net.c): fn may read and change
 *  the service's state through the net_* functions marked "net thread". */
int net_call(struct net *n, void (*fn)(struct net *n, void *ctx), void *ctx);

/** Announces a transaction that entered the pool outside the P2P code (sendrawtransaction)
 *  to every peer that takes transactions. Any thread; does not wait. */
void net_relay_transaction(struct net *n, const uint8_t txid32[32], const uint8_t wtxid32[32]);

/* ---- Net thread only (inside net_call) ---- */

struct net_peer_stats {
    int64_t id;
    char addr[NET_ADDR_STR_LEN];
    char addr_bind[NET_ADDR_STR_LEN];
    char addr_local[NET_ADDR_STR_LEN]; /* what the peer says we are, "" if unknown */
    int network;                       /* enum net_network */
    uint64_t services;
    int relay_txs;
    int64_t last_send, last_recv; /* unix seconds */
    int64_t last_block, last_tx;
    uint64_t bytes_sent, bytes_recv;
    int64_t conn_time;
    int64_t time_offset;
    int64_t ping_us, min_ping_us, ping_wait_us; /* -1: none */
    int32_t version;
    char subver[NET_MAX_SUBVERSION + 1];
    int inbound;
    int bip152_hb_to, bip152_hb_from;
    int32_t starting_height;
    int32_t synced_headers, synced_blocks; /* -1: none */
    int32_t presynced_headers;             /* the pre-sync's height, -1: none */
    int32_t *inflight;                     /* heights (caller frees) */
    size_t n_inflight;
    int addr_relay_enabled;
    uint64_t addr_processed, addr_rate_limited;
    uint32_t permissions;
    int64_t minfeefilter; /* sat/kvB */
    size_t inv_to_send;   /* transactions queued to announce to it */
    uint64_t last_inv_sequence; /* the pool's sequence at our last announcement to it */
    int conn_type;
    int handshake_done;
    int transport;           /* 0 detecting, 1 v1, 2 v2 (enum v2t_kind) */
    uint8_t session_id[32];  /* v2: BIP324's session id */
    /* Bytes per message type (Core's bytessent_per_msg): command names borrowed from a
     * static table, counts at the same index. */
    size_t n_msg_types;
    const char *const *msg_types;
    uint64_t *sent_per_msg; /* caller frees */
    uint64_t *recv_per_msg; /* caller frees */
};

/** The connected peers (handshake or not), in id order: *out (caller frees with
 *  net_peer_stats_free). */
void net_get_peers(struct net *n, struct net_peer_stats **out, size_t *count);
void net_peer_stats_free(struct net_peer_stats *p, size_t count);

/** Connection counts. */
void net_connection_counts(struct net *n, int *in, int *out);

/** Core's TimeOffsets::Median over the last 50 outbound peers' version messages, connected
 *  or not (getnetworkinfo's timeoffset): 0 below five samples. */
int64_t net_time_offset_median(struct net *n);
/** The user agent of our version messages ("/bitnode:0.1.0(comment)/"). Fixed at net_new. */
const char *net_user_agent(const struct net *n);
/** 1 if our version messages ask peers for transactions (a pool, and not -blocksonly): Core's
 *  getnetworkinfo "localrelay". Fixed at net_new. */
int net_local_relay(const struct net *n);
/** Bytes over all connections since start. */
void net_totals(struct net *n, uint64_t *recv, uint64_t *sent);
/* getnettotals' "uploadtarget" (Core's -maxuploadtarget state). */
struct net_upload_info {
    uint64_t target;             /* bytes per cycle, 0: none */
    int target_reached;          /* the budget is spent */
    int serve_historical_blocks; /* old blocks are still served */
    uint64_t bytes_left_in_cycle;
    int64_t time_left_in_cycle;  /* seconds */
};
/** The upload budget's state now. Net thread (net_call) or before net_start. */
void net_upload_info(struct net *n, struct net_upload_info *out);
/** Core's OutboundTargetReached: with historical, whether historical blocks may no longer be
 *  served; else whether the -maxuploadtarget budget is spent. 0 without -maxuploadtarget. */
int net_upload_target_reached(struct net *n, int historical);
/** Disconnects peers by address ("ip:port") or by id (id >= 0). 0 or RC_NOT_FOUND. */
int net_disconnect(struct net *n, const char *address, int64_t id);
/** addnode add / remove / onetry, with the v2 transport tried first if use_v2. RC_INVALID
 *  (already added: "Error: Node already added"), RC_NOT_FOUND (remove: not added). */
int net_addnode(struct net *n, const char *node, const char *command, int use_v2, char *err,
                size_t err_len);
struct net_added_node {
    char node[NET_ADDR_STR_LEN];
    int connected;
    char address[NET_ADDR_STR_LEN]; /* when connected */
    int inbound;
};
/** The added nodes (addnode RPC and -addnode): *out (caller frees). */
void net_added_nodes(struct net *n, struct net_added_node **out, size_t *count);

/** Bans subnet for bantime seconds (absolute: until; bantime <= 0: -bantime from now).
 *  Disconnects the peers in it. */
void net_ban(struct net *n, const struct net_subnet *sn, int64_t bantime, int absolute);
/** Lifts a ban: 0 or RC_NOT_FOUND. */
int net_unban(struct net *n, const struct net_subnet *sn);
/** Whether sn is banned already. */
int net_is_banned_subnet(struct net *n, const struct net_subnet *sn);
struct net_ban_entry {
    struct net_subnet subnet;
    int64_t created, until;
};
/** The current bans (expired ones dropped): *out (caller frees). */
void net_list_banned(struct net *n, struct net_ban_entry **out, size_t *count);
void net_clear_banned(struct net *n);

/** setnetworkactive: off disconnects everyone and stops connecting and accepting. */
void net_set_active(struct net *n, int active);
int net_is_active(struct net *n);
/** ping RPC: a ping to every peer at the next chance. */
void net_ping_all(struct net *n);
/** getblockfrompeer: asks peer id for the block (its header must be known). 0, RC_NOT_FOUND
 *  (no such peer / header), RC_INVALID with err (already have it, peer cannot serve it). */
int net_fetch_block(struct net *n, int64_t peer_id, const uint8_t hash32[32], char *err,
                    size_t err_len);
/** getnetworkinfo's networks: whether network (enum net_network) is reachable (not left out
 *  by -onlynet; onion only with a proxy) and its proxy ("" if none). */
int net_network_reachable(struct net *n, int network);
void net_network_proxy(struct net *n, int network, char out[NET_ADDR_STR_LEN], int *randomize);
/** getnetworkinfo's localaddresses: our own addresses (Core's mapLocalHost, in its order),
 *  each with the port advertised and its score: *out (caller frees) and *count. */
void net_local_addresses(struct net *n, struct localaddr_entry **out, size_t *count);
/** The service's clock (setmocktime's, else the real time), seconds. */
int64_t net_time_now(struct net *n);
/** The local services (NODE_NETWORK | NODE_WITNESS ...). Any thread. */
uint64_t net_local_services(struct net *n);
/** Stops offering bits (loadtxoutset: NODE_NETWORK, until a restart after the background
 *  validation). Any thread; peers connected later see it in our version message. */
void net_remove_local_services(struct net *n, uint64_t bits);
/** Offers bits again. Any thread. */
void net_add_local_services(struct net *n, uint64_t bits);
/** The listening port and whether it listens. */
int net_listening(struct net *n, uint16_t *port);

struct net_known_addr {
    struct net_addr addr;
    uint64_t services;
    int64_t time;
};
/** getaddrmaninfo: the address manager's counts for network (-1: all). */
void net_addrman_counts(struct net *n, int network, size_t *n_new, size_t *n_tried);
/** getnodeaddresses: up to max addresses of network (-1: all) from the address manager.
 *  *out (caller frees). */
void net_node_addresses(struct net *n, int network, size_t max, struct net_known_addr **out,
                        size_t *count);
struct addrman_info;
/** getrawaddrman: every occupied slot of the tried (tried = 1) or new table, each with its
 *  bucket and position (addrman_get_entries). *out (caller frees with free()). */
void net_addrman_entries(struct net *n, struct addrman_info **out, size_t *count, int tried);
/** addpeeraddress: adds a to the address manager as if it had announced itself now, with
 *  NODE_NETWORK | NODE_WITNESS; with tried, then marks it good. *added: it got a new entry;
 *  *made_tried: it moved to the tried table (0 when its tried slot is kept by an entry that
 *  succeeded lately, see addrman_good, or when tried is 0). */
void net_add_peer_address(struct net *n, int *added, int *made_tried, const struct net_addr *a,
                          int tried);
/** addconnection: opens an outbound connection of conn_type (CONN_OUTBOUND_FULL_RELAY,
 *  CONN_BLOCK_RELAY, CONN_FEELER or CONN_ADDR_FETCH) to address ("host:port", resolved as
 *  -connect's), use_v2 kept on the peer for the BIP324 transport. 0 when the attempt was
 *  made (the connection may still fail, as in Core, and while the network is off nothing is
 *  opened); RC_TOO_LARGE when that type (or all automatic connections) is at its limit;
 *  RC_USAGE for another type. */
int net_add_connection(struct net *n, const char *address, int conn_type, int use_v2);
struct buf;
/** sendmsgtopeer: frames payload (borrowed) as command (at most 12 characters) and queues it
 *  to peer_id. 0, or RC_NOT_FOUND when no such peer finished its handshake (Core's ForNode:
 *  fully connected and not disconnecting). */
int net_send_message(struct net *n, int64_t peer_id, const char *command,
                     const struct buf *payload);

/* An orphan transaction (getorphantxs). */
#define NET_ORPHAN_MAX_FROM 8
struct net_orphan {
    uint8_t *raw; /* the transaction as received (freed by net_orphans_free) */
    size_t len;
    int64_t from[NET_ORPHAN_MAX_FROM]; /* the peers that sent or announced it */
    size_t n_from;
};
/** getnetworkinfo's tx_send_rate and inv_buckets (net/invbucket.h): -txsendrate and each
 *  direction's announcement backlog and tokens. Net thread. */
struct invbucket_info;
void net_inv_buckets(struct net *n, unsigned *rate, struct invbucket_info *in,
                     struct invbucket_info *out);
/** getorphantxs: the transactions in the orphan pool. *out (free with net_orphans_free). */
void net_orphans(struct net *n, struct net_orphan **out, size_t *count);
void net_orphans_free(struct net_orphan *v, size_t count);

/** setmocktime: the clock the service reads for timeouts, pings and version times; 0 for
 *  real time. Once the net thread runs, only on it (net_call): a change runs the periodic
 *  work at once. */
void net_set_mocktime(struct net *n, int64_t t);
/** mockscheduler: the service's delayed tasks (Core's scheduler queue: here the rebroadcast
 *  of unbroadcast transactions) come delta_s seconds sooner. */
void net_mock_scheduler(struct net *n, int64_t delta_s);

/* Driving the service without its thread, for fuzzing and tests: the caller's thread is the
 * net thread (net_start is never called), feeding a peer's bytes to the real message
 * handling and running the event loop until the validation jobs it caused are answered. */
/** A new inbound peer from a (perms: NET_PERM_* bits) on one end of a socketpair, as if
 *  accepted; *remote_fd is the other end (what the node sends arrives there; the caller
 *  drains it through net_drive_settle and closes it). Returns 0 or RC_IO. */
int net_drive_inbound(struct net *n, int64_t *peer_id, int *remote_fd, const struct net_addr *a,
                      uint32_t perms);
/** Bytes from peer_id, as if read from its socket (v1 frames, or the v2 transport's bytes),
 *  handled at once unless its reads are paused. Returns 0, or RC_NOT_FOUND if the peer is
 *  gone or going. */
int net_drive_receive(struct net *n, int64_t peer_id, const uint8_t *d, size_t len);
/** Waits for the validation jobs out, runs the event loop without blocking (their answers,
 *  disconnections, what waited while reads were paused) until nothing is left, and drains
 *  remote_fd (-1: none). */
void net_drive_settle(struct net *n, int remote_fd);

#endif
