/* The address manager: the addresses this node has heard of and those it has connected to,
 * kept in Bitcoin Core's bucketed tables (addrman) so that no single peer or network group
 * can fill them, and saved to peers.dat (format in doc/files.md, "Peer addresses
 * (peers.dat)"; code in addrman_file.c, the structures in the private addrman_impl.h).
 *
 * Two tables of fixed-size buckets. "new" (1024 buckets of 64 slots) holds addresses heard of
 * in addr messages, seeds and the like; an address may sit in up to 8 new buckets at once
 * (one per source group it was heard from). "tried" (256 buckets of 64 slots) holds
 * addresses we once completed a handshake with, each in exactly one slot. Which bucket and
 * which slot is a keyed hash (Core's: double SHA-256 of a 256-bit key of this addrman, kept
 * in the file, and what is hashed, so Core and bitnode put an address in the same slot)
 * of the address's network group, its source's group and the address itself, so an
 * attacker who does not know the key cannot aim at a slot, and the addresses of one group
 * (one source group) reach at most 8 tried (64 new) buckets.
 *
 * Times are Unix seconds and always passed in: the module never reads a clock, so tests
 * choose the time. Randomness comes from a small PRNG of its own, seeded at addrman_new.
 *
 * An address is identified by network, address bytes and port (Core's CService): the same
 * IP with two ports is two entries. Only publicly routable, well-formed addresses are
 * accepted (IPv4, IPv6, Tor v3, I2P, CJDNS).
 *
 * Thread: not thread-safe. One owner (the net thread) calls everything.
 * Layering: of net/ it includes netaddr.h only, never net.h or net_impl.h (they use it).
 */
#ifndef BITNODE_NET_ADDRMAN_H
#define BITNODE_NET_ADDRMAN_H

#include <stddef.h>
#include <stdint.h>

#include "net/netaddr.h"
#include "util/buf.h"

/* Table geometry (Core's ADDRMAN_*). Part of the file format: changing one invalidates
 * saved positions, so the format version would change with it. */
#define ADDRMAN_NEW_BUCKET_COUNT 1024
#define ADDRMAN_TRIED_BUCKET_COUNT 256
#define ADDRMAN_BUCKET_SIZE 64
#define ADDRMAN_NEW_BUCKETS_PER_ADDRESS 8       /* new references one address may hold */
#define ADDRMAN_TRIED_BUCKETS_PER_GROUP 8       /* tried buckets one address group reaches */
#define ADDRMAN_NEW_BUCKETS_PER_SOURCE_GROUP 64 /* new buckets one source group reaches */

/* Entry quality (Core's values). */
#define ADDRMAN_HORIZON_S (30 * 24 * 3600)   /* not seen for this long: terrible */
#define ADDRMAN_RETRIES 3                    /* failures without ever a success: terrible */
#define ADDRMAN_MAX_FAILURES 10              /* failures in a row ... */
#define ADDRMAN_MIN_FAIL_S (7 * 24 * 3600)   /* ... with no success for this long: terrible */
#define ADDRMAN_REPLACEMENT_S (4 * 3600)     /* a tried entry good this recently is kept */
#define ADDRMAN_CONNECTED_UPDATE_S (20 * 60) /* addrman_connected refreshes time this rarely */

/* The longest network group (addrman_netgroup): the class byte and up to 5 address bytes. */
#define ADDRMAN_NETGROUP_MAX 6

/* A network mask for addrman_select: bit (1u << NETWORK_IPV4) etc.; 0 means any network. */
#define ADDRMAN_NET_BIT(network) (1u << (network))

struct addrman;

/* An address as gossip carries it (addr / addrv2 entries, getaddr answers). */
struct addrman_addr {
    struct net_addr addr;
    uint64_t services;
    int64_t time; /* when the address was last seen active, as announced (Unix seconds) */
};

/* Everything addrman knows about one entry (tests, RPCs such as getrawaddrman). */
struct addrman_info {
    struct net_addr addr;
    struct net_addr source; /* who first told us (net 0, len 0 when unknown) */
    uint64_t services;
    int64_t time;
    int64_t last_try;     /* last connection attempt, 0 if never */
    int64_t last_success; /* last completed handshake, 0 if never */
    int attempts;         /* failed attempts counted since the last success */
    int in_tried;         /* 1: in the tried table, 0: in new */
    int ref_count;        /* new: how many new buckets hold it (1..8); tried: 1 */
    int bucket;           /* tried: its bucket; new: the lowest new bucket holding it */
    int position;         /* the slot within that bucket */
};

/* What addrman_good did. */
enum addrman_good_result {
    ADDRMAN_GOOD_MOVED = 0,         /* moved from new to tried (an occupant may have gone to new) */
    ADDRMAN_GOOD_ALREADY_TRIED = 1, /* was in tried: statistics updated */
    ADDRMAN_GOOD_KEPT_NEW = 2,      /* its tried slot holds an entry that succeeded within
                                       ADDRMAN_REPLACEMENT_S: that one stays, this one stays
                                       in new (statistics updated) */
};

/** Creates an empty address manager.
 *
 *  Returns: the handle (never NULL; allocation failure aborts). Free with addrman_free.
 *  In:      seed: 0 for production (PRNG state and bucket key from util/random.h); any
 *           other value makes everything deterministic: the key is Core's deterministic one
 *           (-test=addrman: uint256{1}, byte 0 one, the rest zero) and the PRNG is
 *           derived from the seed, so two addrmen built with the same seed and fed the
 *           same calls behave identically, and place addresses where Core's would.
 */
struct addrman *addrman_new(uint64_t seed);

/** Frees am and everything it holds. NULL is a no-op. */
void addrman_free(struct addrman *am);

/** Restarts the PRNG from seed (non-zero) exactly as addrman_new(seed) would start it; the key
 *  and the entries are kept. For tests comparing two addrmen (e.g. before and after a save
 *  and load); seed 0 reseeds from util/random.h. */
void addrman_set_seed(struct addrman *am, uint64_t seed);

/** Copies the 256-bit bucket key (tests; it is secret otherwise: never log it). */
void addrman_get_key(const struct addrman *am, uint8_t key32[32]);

/** Adds addresses heard from source to the new table (Core's Add / AddSingle).
 *
 *  Per address: an unroutable or malformed one is skipped. An unknown one is created with
 *  time = max(0, addr.time - time_penalty_s) (no penalty when it is source's own address)
 *  and placed in the new bucket of (its group, source's group), evicting the slot's
 *  occupant only if that one is terrible or has other references. A known one gets its
 *  services OR-ed in and its time refreshed (at most hourly if seen within a day, else
 *  daily); if the announcement is newer, the entry is still in new and has fewer than 8
 *  references, one more reference is added with probability 1/2^refs.
 *
 *  Returns: 0; RC_USAGE if addrs is NULL with n > 0, or time_penalty_s < 0.
 *  Out:     n_added (may be NULL): how many addresses got a new reference or entry.
 *  In:      addrs[0..n): borrowed. source: the peer that sent them (its address is the
 *           source group); NULL when unknown, and a malformed one counts as unknown (all
 *           such addresses share one source group with local and unroutable sources).
 *           now: the current time, for the "seen within a day" test and terrible checks.
 */
int addrman_add(struct addrman *am, size_t *n_added, const struct addrman_addr *addrs, size_t n,
                const struct net_addr *source, int64_t time_penalty_s, int64_t now);

/** Marks addr as good: a handshake with it completed (Core's Good). Sets last_success and
 *  last_try to now and attempts to 0 (time is left alone, so peers cannot learn whom we are
 *  connected to), then moves the entry from new to tried. If its tried slot is taken: the
 *  occupant stays when it succeeded within ADDRMAN_REPLACEMENT_S (*result KEPT_NEW),
 *  otherwise the occupant goes back to new (its own source's bucket) and addr takes the
 *  slot. (Core instead queues the collision and tests the occupant with a feeler
 *  connection; this is that test answered from the occupant's history.)
 *
 *  Returns: 0; RC_NOT_FOUND if addr is not known (nothing changes but the time of the last
 *           good, which lets later failed attempts count again); RC_USAGE if now <= 0.
 *  Out:     result (may be NULL): enum addrman_good_result.
 */
int addrman_good(struct addrman *am, int *result, const struct net_addr *addr, int64_t now);

/** addrman_good, except that any occupant of the tried slot stays (*result KEPT_NEW) however
 *  old its last success: Core's Good with test_before_evict as addpeeraddress sees it (the
 *  collision is not tested later). Returns as addrman_good. */
int addrman_good_keep_occupant(struct addrman *am, int *result, const struct net_addr *addr,
                               int64_t now);

/** Records a connection attempt to addr (Core's Attempt): last_try = now; with
 *  count_failure, attempts grows by one unless an attempt was already counted since the
 *  last addrman_good of any address (so an outage of our own does not punish everyone).
 *  Returns: 0; RC_NOT_FOUND if addr is not known. */
int addrman_attempt(struct addrman *am, const struct net_addr *addr, int count_failure,
                    int64_t now);

/** Records that we are (still) connected to addr: its time becomes now if it is older than
 *  ADDRMAN_CONNECTED_UPDATE_S (Core's Connected; call it when a connection closes).
 *  Returns: 0; RC_NOT_FOUND if addr is not known. */
int addrman_connected(struct addrman *am, const struct net_addr *addr, int64_t now);

/** Replaces the services of addr with what its version message said (Core's SetServices).
 *  Returns: 0; RC_NOT_FOUND if addr is not known. */
int addrman_set_services(struct addrman *am, const struct net_addr *addr, uint64_t services);

/** Picks an address to connect to (Core's Select). Chooses the tried or the new table with
 *  equal chance (new when new_only, or when the other has no candidate), then random
 *  buckets and slots, accepting an entry with probability GetChance (1, times 0.01 if tried
 *  within 10 minutes, times 0.66 per counted failure up to 8) times a factor that grows
 *  1.2-fold after every refusal. Terrible entries are never returned. If random probing
 *  finds nothing for a long while (a nearly empty or mostly terrible table), the table is
 *  scanned once and the choice weighted by the same chance.
 *
 *  Returns: 0; RC_NOT_FOUND if no entry qualifies.
 *  Out:     out: the address; last_try (may be NULL): its last attempt, 0 if never.
 *  In:      new_only: only the new table. networks: a mask of ADDRMAN_NET_BIT(NETWORK_*),
 *           0 for any. now: for the chance and terrible tests.
 */
int addrman_select(struct addrman *am, struct addrman_addr *out, int64_t *last_try, int new_only,
                   uint32_t networks, int64_t now);

/** A random subset of the entries, without terrible ones (Core's GetAddr: getaddr answers,
 *  getnodeaddresses). Up to max_pct percent of all entries (0: no percentage cap; above 100
 *  counts as 100) and up to max_count (0: no cap) are drawn, the terrible and those of other
 *  networks dropped from the draw, so fewer may come back.
 *
 *  Returns: 0.
 *  Out:     *out: n_out entries, allocated (caller frees with free()); NULL if n_out is 0.
 *  In:      network: a NETWORK_* to keep only that network, -1 for all.
 */
int addrman_get_addr(struct addrman *am, struct addrman_addr **out, size_t *n_out, size_t max_count,
                     size_t max_pct, int network, int64_t now);

/** Counts entries (getaddrmaninfo). network: a NETWORK_*, or -1 for all; in_new: 1 for the
 *  new table, 0 for tried, -1 for both. Returns the count. */
size_t addrman_size(const struct addrman *am, int network, int in_new);

/** Looks addr up. Returns 0 with *out filled, or RC_NOT_FOUND. */
int addrman_find(const struct addrman *am, struct addrman_info *out, const struct net_addr *addr);

/** Every occupied slot of one table, bucket by bucket and slot by slot within each (Core's
 *  GetEntries: getrawaddrman). A new entry with several references appears once per slot it
 *  holds.
 *
 *  Returns: 0.
 *  Out:     *out: n_out entries, allocated (caller frees with free()); NULL if n_out is 0.
 *           Each entry's bucket and position are those of its slot.
 *  In:      tried: 1 for the tried table, 0 for new.
 */
int addrman_get_entries(const struct addrman *am, struct addrman_info **out, size_t *n_out,
                        int tried);

/** 1 if Core's IsTerrible holds for info at now: not tried within the last minute, and
 *  time in the future by over 10 minutes, or older than ADDRMAN_HORIZON_S, or ADDRMAN_RETRIES
 *  failures and never a success, or ADDRMAN_MAX_FAILURES failures and no success within
 *  ADDRMAN_MIN_FAIL_S. */
int addrman_is_terrible(const struct addrman_info *info, int64_t now);

/** The network group of a (Core's NetGroupManager::GetGroup without asmap): a class byte
 *  (NETWORK_* of the address, IPv4 for IPv6 addresses embedding one: 6to4, Teredo, NAT64,
 *  SIIT) followed by: the /16 of the (embedded) IPv4; the /32 of IPv6 (/36 for he.net,
 *  2001:470::/32); the first 4 bits of Tor and I2P keys and 12 bits of CJDNS; nothing for
 *  local and unroutable addresses (one group, class 0).
 *  Returns: the group's length (1..ADDRMAN_NETGROUP_MAX), written to out. */
size_t addrman_netgroup(const struct net_addr *a, uint8_t out[ADDRMAN_NETGROUP_MAX]);

/** 1 if addrman would accept a as an entry: well formed for its BIP155 network and publicly
 *  routable (net_addr_is_routable, and not ORCHID 2001:10::/28, 2001:20::/28; CJDNS in
 *  fc00::/8; Tor v2 is not accepted). */
int addrman_addr_acceptable(const struct net_addr *a);

/** Checks every invariant: each entry's table references agree with the tables and with
 *  the bucket and slot its hashes give, the counts per table and network, the lookup map,
 *  the random order. Runs in O(entries + slots).
 *  Returns: 0, or RC_CORRUPT with err saying which invariant failed (a bug). */
int addrman_check(const struct addrman *am, char *err, size_t err_len);

/** Appends the whole state in Bitcoin Core's peers.dat format (doc/files.md): magic, format
 *  4 with compat 36, key, counts, every entry (CAddress in BIP155 form, source, last
 *  success, attempts: the last try is memory only, as in Core), the new buckets' lists, a
 *  zero asmap version, sha256d checksum. Canonical: equal states give equal bytes. */
void addrman_serialize(const struct addrman *am, struct buf *out, const uint8_t magic[4]);

/** Replaces am's entries and key with those in p[0..len) (a peers.dat image in Core's
 *  formats 0 to 4, or bitnode's former format), as Core's AddrMan::Unserialize does: new
 *  entries keep their buckets when the bucket count and asmap version are Core's defaults
 *  (else each goes to its source's bucket), tried entries take the slot their hash gives;
 *  an entry that collides, or whose address this addrman does not take, is dropped. Nothing
 *  in the input can crash it or leave a half-loaded state.
 *
 *  Returns: 0 on success (am holds the file's state; its PRNG is kept).
 *           RC_INVALID: a format this code cannot read (lowest compatible over 4): Core
 *           renames such a file to peers.dat.bak and starts empty.
 *           RC_CORRUPT: anything else, err holding Core's words, in Core's order (e.g.
 *           "Invalid network magic number", "AutoFile::read: end of file: iostream error",
 *           "Corrupt AddrMan serialization: nTried=...", "Corrupt data. Consistency check
 *           failed with code -16: iostream error", "Checksum mismatch, data corrupted").
 *           On failure am is unchanged.
 *  Out:     old_format (may be NULL): 1 if the image was bitnode's former format.
 *  In:      magic: the chain's message start (the file must carry the same).
 */
int addrman_deserialize(struct addrman *am, int *old_format, const uint8_t *p, size_t len,
                        const uint8_t magic[4], char *err, size_t err_len);

/** Writes addrman_serialize's output to path atomically (path.tmp, fsync, rename), mode 0600.
 *  Returns: 0 or RC_IO with err filled. */
int addrman_save(const struct addrman *am, const char *path, const uint8_t magic[4], char *err,
                 size_t err_len);

/** Reads path and addrman_deserialize's it into am.
 *  Returns: 0; RC_NOT_FOUND if there is no file; RC_IO or RC_TOO_LARGE (over 32 MiB) if it
 *           cannot be read; RC_INVALID or RC_CORRUPT as addrman_deserialize. err is filled
 *           on every failure; am is unchanged then.
 *  Out:     old_format (may be NULL): as addrman_deserialize.
 */
int addrman_load(struct addrman *am, int *old_format, const char *path, const uint8_t magic[4],
                 char *err, size_t err_len);

#endif
