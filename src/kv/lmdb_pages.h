/* The page reader of the kv backend "lmdb" (private to src/kv/lmdb.c and src/kv/lmdb_pages.c):
 * the record checksums, and a reader and checker of LMDB 0.9's on-disk page format that
 * checks hits, proves misses and walks a snapshot for iterators and size estimates. What it
 * checks, and why: "Damage" in lmdb_pages.c.
 *
 * Every function reading pages takes the store's page view (struct lm_pages) and, but for
 * kv_lmdb_entry_check, a snapshot (struct lm_snap) whose read transaction the caller keeps
 * alive for the call and for as long as it uses the pointers returned. A failed check calls
 * kv_set_error() (through kv_lmdb_damaged) and returns RC_BACKEND.
 */
#ifndef BITNODE_KV_LMDB_PAGES_H
#define BITNODE_KV_LMDB_PAGES_H

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

#define LM_DATA_FILE "data.mdb"
#define LM_KEY_PREFIX 0x00
#define LM_CRC_BYTES 4
#define LM_MAX_DEPTH 32 /* of a snapshot's tree: a walk's path has this many steps at most */

/* What the page reader reads of a store: set by lmdb.c at open, constant while it is open. */
struct lm_pages {
    const char *path;   /* the store's directory, for messages (borrowed from the backend) */
    MDB_env *env;       /* LMDB's environment (borrowed from the backend) */
    const uint8_t *map; /* our read-only mapping of data.mdb, for the page reader */
    size_t map_bytes;   /* LMDB's map size, and ours */
    size_t psize;       /* LMDB's page size */
    int node_bounds;    /* LMDB's map is psize-aligned: a node's offset is its address's */
};

/* Pages a reader's walks have checked (page_check), a table direct-mapped by page number.
 * While a snapshot is the newest no page of it can be freed, so a later transaction that gets
 * the same snapshot (nothing committed in between) need not check them again: in a phase of
 * reads, the walks of misses check each branch page once instead of once per get. */
#define LM_CHECKED_SLOTS 256
struct lm_checked {
    uint64_t txnid, pgno;
    const uint8_t *lo, *hi; /* the bounds it was checked against (keys in the map) */
    unsigned n;
    int full; /* checked with the order of all its keys */
};

/* A snapshot's main database, as its meta page says. */
struct lm_snap {
    uint64_t txnid, root, last_pg, leaf_pages, overflow_pages, branch_pages, entries;
    unsigned depth;
    struct lm_checked *checked; /* of the reader whose transaction pins the snapshot */
};

/* A key bound inherited from branch separators (key NULL: none). */
struct bound {
    const uint8_t *key;
    size_t len;
};

/* A path from the root to a leaf, one step per level: the page (checked), its node count, the
 * node followed (in the leaf: the record at hand, or key's place) and the key bounds the page
 * was checked against. It stays valid while the snapshot's transaction lives. */
struct walk_step {
    const uint8_t *p;
    uint64_t pgno;
    unsigned n, a;
    struct bound lo, hi;
};

/* Prepares the CRC-32C tables. Call before anything here computes a checksum (lmdb.c's open
 * does); any thread, any number of times (only the first call does the work). */
void kv_lmdb_crc_init(void);

/* The checksum stored in front of a value: the CRC-32C of (u32le key_len, key, value), where
 * key is the LMDB key (the prefix byte and the kv key). Pure. */
uint32_t kv_lmdb_record_crc(const uint8_t *key, size_t key_len, const uint8_t *val, size_t val_len);

/* Reports damage found while doing what: sets the kv error to name the store, what, the
 * detail (printf format) and that data.mdb fails bitnode's checks. Returns RC_BACKEND. */
int kv_lmdb_damaged(const struct lm_pages *db, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Node i of page p (a checked leaf or branch page, i below its node count): a pointer into
 * the page, where the node's header starts. */
const uint8_t *kv_lmdb_page_node(const uint8_t *p, unsigned i);

/* Reads the main database of txn's snapshot (txn: a live read transaction) from its meta page
 * into *s (all but s->checked, which the caller sets).
 * Returns: 0; 1 if writers have reused that meta page already (take a new snapshot and call
 *          again); RC_BACKEND if it makes no sense (damage, reported). */
int kv_lmdb_snap_read(const struct lm_pages *db, MDB_txn *txn, struct lm_snap *s, const char *what);

/* Reads the record of leaf node nd (of a checked leaf page of s; its value from overflow
 * pages if it is there) and checks it against its checksum.
 * Returns: 0 with *k, *kl the LMDB key and *v, *vl the value with its checksum in front
 *          (pointers into the map, valid while s's transaction lives); RC_BACKEND on damage. */
int kv_lmdb_record_read(const struct lm_pages *db, const struct lm_snap *s, const uint8_t *nd,
                        const char *what, const uint8_t **k, size_t *kl, const uint8_t **v,
                        size_t *vl);

/* Walks snapshot s (not empty: depth > 0) from its root to the leaf where key (an LMDB key)
 * belongs, checking each page it enters, into path[0 .. s->depth - 1]: in the branches the
 * child followed, in the leaf the first record >= key (a == n: after the leaf's last).
 * Returns: 0; RC_BACKEND on damage (path is then unusable). */
int kv_lmdb_path_seek(const struct lm_pages *db, const struct lm_snap *s, struct walk_step *path,
                      const uint8_t *key, size_t key_len, const char *what);

/* Moves path (a walk of s, as kv_lmdb_path_seek leaves it) to the next leaf (dir > 0; on its
 * first record) or the previous one (dir < 0; on its last), checking the pages it enters.
 * Returns: 0; 1 if there is none (path unchanged); RC_BACKEND (path is then unusable). */
int kv_lmdb_path_step(const struct lm_pages *db, const struct lm_snap *s, struct walk_step *path,
                      int dir, const char *what);

/* The estimated fraction (0 to 1) of s's entries before the record (or place) path's leaf is
 * at, taking the subtrees of a page as equally large. Pure. */
double kv_lmdb_path_frac(const struct lm_snap *s, const struct walk_step *path);

/* Proves that key (an LMDB key) is absent from snapshot s: the walk to its place passes, the
 * leaf does not hold it, and the records on either side of its place (in that leaf, or at
 * the near end of the leaf next to it) pass their checksums and lie on either side of key.
 * Returns: 0 if it is absent (also for an empty s); RC_BACKEND on damage, LMDB's miss of a
 *          key its pages hold included. */
int kv_lmdb_miss_prove(const struct lm_pages *db, const struct lm_snap *s, const uint8_t *key,
                       size_t key_len, const char *what);

/* Checks a record LMDB returned (k, v: LMDB's pointers into its map, of a live transaction)
 * before it is used: the prefix, the value's size, that the value lies where its node says
 * (inside the leaf page, or on overflow pages inside the file; only where db->node_bounds)
 * and the checksum. Returns: 0; RC_BACKEND on damage. */
int kv_lmdb_entry_check(const struct lm_pages *db, const MDB_val *k, const MDB_val *v,
                        const char *what);

#endif
