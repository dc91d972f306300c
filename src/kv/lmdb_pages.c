/* The page reader of the kv backend "lmdb" (src/kv/lmdb.c): the record checksums (CRC-32C),
 * and a reader and checker of LMDB 0.9's pages. Contracts in lmdb_pages.h.
 *
 * Damage. LMDB trusts its pages; a damaged store must instead fail the read, never answer "not
 * found" for a key that was written, nor return wrong bytes (kv.h). The checks read data.mdb
 * through a page reader of LMDB 0.9's data format 1 (the format of all of 0.9), over a second,
 * read-only mapping of the file; at every open, its reading of the meta page must agree with
 * LMDB's own numbers, or the store is refused.
 * - A hit (LMDB's get) is checked before it is returned: the prefix byte, that the value lies
 *   inside its leaf page (or on overflow pages that say so and lie inside the file), and the
 *   record's checksum.
 * - A miss is proven: the page reader walks from the root of the same snapshot to the leaf
 *   where the key would be. Each page on the way must hold its own page number and the
 *   expected type, and its nodes must tile its node space exactly (none lost, repeated or
 *   overlapping: LMDB keeps them packed); the leaf's keys must be prefixed, strictly
 *   increasing and inside the separators that led there, and each branch's separators around
 *   the child followed must be in order, nested, and around the key. The records on either
 *   side of the key's place (in that leaf, or at the near end of the next leaf over, reached
 *   the same way) must pass their checksums and lie on either side of the key. So junk in a
 *   branch page (a separator that misroutes, a child link to another page, a lost child), in a
 *   leaf's index or in a record is an error, not a miss. (Testing only the neighbours LMDB
 *   returns is not enough: a damaged link or index drops whole leaves, and the records on
 *   either side of the gap look fine.) The walk costs a few microseconds on pages not in the
 *   CPU cache (it reads them whole); a reader remembers the pages it checked while its
 *   snapshot stays the newest, so a phase of reads checks each branch page once.
 * - Iterators read their snapshot with the page reader rather than an LMDB cursor, checking
 *   each page once as the walk enters it and each record as it is reached: LMDB's cursor would
 *   fail an assertion or fault on a damaged page that a scan reaches.
 * - LMDB's own get can still read a damaged page before it is checked: from a page near the
 *   end of the file it could read past the end (SIGBUS), so data.mdb is kept LM_TAIL_BYTES
 *   longer than its last page (a hole: no disk space; lmdb.c's tail_pad), and a damaged
 *   branch page can fail one of its assertions (the process stops, the store's path logged
 *   first).
 * - What no check here sees: a page replaced by an older, self-consistent version of itself
 *   (a lost write, or a damaged link that lands on a freed copy of the same key range), or a
 *   rolled-back meta page. That takes page checksums with transaction numbers, which LMDB 0.9
 *   does not have.
 * - Open (lmdb.c's layout_check) refuses a data.mdb shorter than its meta page says; with
 *   paranoid_checks it also walks to the first and the last record.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "kv/backend.h"
#include "kv/kv.h"
#include "kv/lmdb_pages.h"
#include "util/buf.h"
#include "util/rc.h"

_Static_assert(sizeof(size_t) == 8, "the page reader expects a 64-bit LMDB (pgno_t = size_t)");

/* LMDB 0.9's data format 1 (mdb.c: MDB_page, MDB_node, MDB_meta, MDB_db), native byte order. */
#define PAGE_HDR 16 /* u64 pgno, u16 pad, u16 flags, u16 lower, u16 upper (or u32 pages) */
#define NODE_HDR 8  /* u16 lo, u16 hi, u16 flags, u16 ksize; then the key and the data */
#define PAGE_BRANCH 0x01
#define PAGE_LEAF 0x02
#define PAGE_OVERFLOW 0x04
#define NODE_BIGDATA 0x01
#define META_MAGIC 0xBEEFC0DEu
#define META_VERSION 1
#define META_PSIZE 24    /* offsets inside the meta (which starts PAGE_HDR into pages 0 and 1) */
#define META_MAIN 72     /* MDB_db of the main database: u32 pad, u16 flags, u16 depth, u64 */
#define META_LAST_PG 120 /* branch pages, leaf pages, overflow pages, entries, root */
#define META_TXNID 128
#define NO_PAGE UINT64_MAX
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NODE_LO 0
#define NODE_HI 2
#else
#define NODE_LO 2
#define NODE_HI 0
#endif

/* ---- damage reports ----------------------------------------------------------------------- */

int kv_lmdb_damaged(const struct lm_pages *db, const char *what, const char *fmt, ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    kv_set_error("lmdb %s: %s: the store is damaged: %s (" LM_DATA_FILE " fails bitnode's "
                 "checks; LMDB keeps no checksums)",
                 db->path, what, detail);
    return RC_BACKEND;
}

/* ---- record checksums (CRC-32C, slicing by 8) -------------------------------------------- */

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        }
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        for (int k = 1; k < 8; k++) {
            crc_table[k][n] = (crc_table[k - 1][n] >> 8) ^ crc_table[0][crc_table[k - 1][n] & 0xff];
        }
    }
}

static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n >= 8) {
        uint32_t a = crc ^ rd_u32le(p), b = rd_u32le(p + 4);
        crc = crc_table[7][a & 0xff] ^ crc_table[6][(a >> 8) & 0xff] ^
              crc_table[5][(a >> 16) & 0xff] ^ crc_table[4][a >> 24] ^ crc_table[3][b & 0xff] ^
              crc_table[2][(b >> 8) & 0xff] ^ crc_table[1][(b >> 16) & 0xff] ^
              crc_table[0][b >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) {
        crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}

void kv_lmdb_crc_init(void)
{
    pthread_once(&crc_once, crc_init);
}

/* The checksum stored in front of a value: over the LMDB key (with its length) and value. */
uint32_t kv_lmdb_record_crc(const uint8_t *key, size_t key_len, const uint8_t *val, size_t val_len)
{
    uint8_t len[4];
    wr_u32le(len, (uint32_t)key_len);
    return crc32c(crc32c(crc32c(0, len, 4), key, key_len), val, val_len);
}

/* ---- LMDB's page format ------------------------------------------------------------------ */

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

/* kv_key_cmp, inlined for the page reader's hot loops: memcmp, then the shorter first (the
 * order of LMDB's default comparator). */
static inline int key_cmp(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    int c = memcmp(a, b, a_len < b_len ? a_len : b_len);
    return c != 0 ? c : a_len < b_len ? -1 : a_len > b_len;
}

static uint16_t node_ksize(const uint8_t *n)
{
    return rd16(n + 6);
}

static uint16_t node_flags(const uint8_t *n)
{
    return rd16(n + 4);
}

static uint32_t node_dsize(const uint8_t *n)
{
    return (uint32_t)rd16(n + NODE_LO) | ((uint32_t)rd16(n + NODE_HI) << 16);
}

static uint64_t node_pgno(const uint8_t *n)
{
    return node_dsize(n) | ((uint64_t)node_flags(n) << 32);
}

/* A node's bytes in its page (mdb.c: NODESIZE + key + data or overflow page number, even). */
static uint64_t node_size(const uint8_t *n, int leaf)
{
    uint64_t s = NODE_HDR + (uint64_t)node_ksize(n);
    if (leaf) {
        s += (node_flags(n) & NODE_BIGDATA) ? 8 : node_dsize(n);
    }
    return (s + 1) & ~(uint64_t)1;
}

const uint8_t *kv_lmdb_page_node(const uint8_t *p, unsigned i)
{
    return p + rd16(p + PAGE_HDR + 2 * i);
}

/* Reads the main database of txn's snapshot from its meta page. Returns 0; 1 if writers have
 * reused that meta page already (take a new snapshot); RC_BACKEND if it makes no sense. */
int kv_lmdb_snap_read(const struct lm_pages *db, MDB_txn *txn, struct lm_snap *s, const char *what)
{
    uint64_t t = mdb_txn_id(txn);
    const uint8_t *m = db->map + (t & 1) * db->psize + PAGE_HDR;
    const uint8_t *d = m + META_MAIN;

    if (rd64(m + META_TXNID) != t) {
        return 1;
    }
    atomic_thread_fence(memory_order_seq_cst);
    s->txnid = t;
    s->depth = rd16(d + 6);
    s->branch_pages = rd64(d + 8);
    s->leaf_pages = rd64(d + 16);
    s->overflow_pages = rd64(d + 24);
    s->entries = rd64(d + 32);
    s->root = rd64(d + 40);
    s->last_pg = rd64(m + META_LAST_PG);
    if (rd32(m) != META_MAGIC || rd32(m + 4) != META_VERSION || rd32(m + META_PSIZE) != db->psize ||
        rd16(d + 4) != 0) {
        atomic_thread_fence(memory_order_seq_cst);
        return rd64(m + META_TXNID) != t
                   ? 1
                   : kv_lmdb_damaged(db, what, "meta page %llu", (unsigned long long)(t & 1));
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (rd64(m + META_TXNID) != t) {
        return 1;
    }
    if (s->last_pg < 1 || s->last_pg >= db->map_bytes / db->psize) {
        return kv_lmdb_damaged(db, what, "meta page: last page %llu",
                               (unsigned long long)s->last_pg);
    }
    if (s->depth > LM_MAX_DEPTH || (s->depth == 0) != (s->root == NO_PAGE) ||
        (s->depth == 0 && s->entries != 0) ||
        (s->depth != 0 && (s->root < 2 || s->root > s->last_pg))) {
        return kv_lmdb_damaged(db, what, "meta page: depth %u, root page %llu", s->depth,
                               (unsigned long long)s->root);
    }
    return 0;
}

static int bit_get(const uint8_t *starts, uint64_t off)
{
    return (starts[off / 16] >> (off / 2 % 8)) & 1;
}

/* Checks page pgno of snapshot s as a leaf (or branch) page whose keys lie in [lo, hi), and
 * returns it and its number of nodes. */
static int page_check(const struct lm_pages *db, const struct lm_snap *s, uint64_t pgno, int leaf,
                      int full, struct bound lo, struct bound hi, const char *what,
                      const uint8_t **out, unsigned *n_out)
{
    uint8_t starts[32768 / 16]; /* one bit per 2-byte offset: where nodes begin */
    const uint8_t *p, *prev = NULL;
    size_t psize = db->psize, prev_len = 0;
    unsigned lower, upper, n;
    uint64_t total = 0;
    struct lm_checked *cache;

    if (pgno < 2 || pgno > s->last_pg) {
        return kv_lmdb_damaged(db, what, "a link to page %llu, past the last page %llu",
                               (unsigned long long)pgno, (unsigned long long)s->last_pg);
    }
    p = db->map + pgno * psize;
    cache = &s->checked[pgno % LM_CHECKED_SLOTS];
    if (cache->txnid == s->txnid && cache->pgno == pgno && cache->lo == lo.key &&
        cache->hi == hi.key && (cache->full || !full)) {
        *out = p;
        *n_out = cache->n;
        return 0;
    }
    if (rd64(p) != pgno || rd16(p + 10) != (leaf ? PAGE_LEAF : PAGE_BRANCH)) {
        return kv_lmdb_damaged(db, what,
                               "page %llu: header says page %llu, flags 0x%x (a %s page "
                               "expected)",
                               (unsigned long long)pgno, (unsigned long long)rd64(p), rd16(p + 10),
                               leaf ? "leaf" : "branch");
    }
    lower = rd16(p + 12);
    upper = rd16(p + 14);
    if (lower < PAGE_HDR + 2 || (lower & 1) || (upper & 1) || lower > upper || upper > psize) {
        return kv_lmdb_damaged(db, what, "page %llu: free space from %u to %u",
                               (unsigned long long)pgno, lower, upper);
    }
    n = (lower - PAGE_HDR) / 2;
    /* The nodes must tile [upper, psize) exactly: LMDB packs them there (mdb_node_add and
     * mdb_node_del keep them contiguous), so a lost, repeated or stray index entry shows. They
     * do if their starts are distinct, one is at upper, each ends where another starts or at
     * the page's end, and their sizes add up to the space: following the ends from upper then
     * tiles the space, and no node can lie off that chain. (Each test reads one node, so the
     * reads of a page's nodes overlap instead of waiting for one another.) */
    memset(starts, 0, psize / 16);
    for (unsigned i = 0; i < n; i++) {
        unsigned off = rd16(p + PAGE_HDR + 2 * i);
        if (off < upper || (off & 1) || off > psize - NODE_HDR || bit_get(starts, off)) {
            return kv_lmdb_damaged(db, what, "page %llu: node %u at offset %u",
                                   (unsigned long long)pgno, i, off);
        }
        starts[off / 16] |= (uint8_t)(1u << (off / 2 % 8));
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned off = rd16(p + PAGE_HDR + 2 * i);
        uint64_t sz = node_size(p + off, leaf);
        if (sz > psize - off || (off + sz < psize && !bit_get(starts, off + sz))) {
            return kv_lmdb_damaged(db, what,
                                   "page %llu: node %u of %llu bytes at offset %u overlaps",
                                   (unsigned long long)pgno, i, (unsigned long long)sz, off);
        }
        total += sz;
    }
    if ((upper < psize && !bit_get(starts, upper)) || total != psize - upper) {
        return kv_lmdb_damaged(db, what, "page %llu: %llu bytes of nodes in %zu bytes of space",
                               (unsigned long long)pgno, (unsigned long long)total, psize - upper);
    }
    /* Keys: prefixed, strictly increasing, inside the bounds. A branch's first node has no
     * key (LMDB's implicit "everything below the second"). */
    for (unsigned i = leaf ? 0 : 1; (leaf || full) && i < n; i++) {
        const uint8_t *nd = kv_lmdb_page_node(p, i), *k = nd + NODE_HDR;
        size_t kl = node_ksize(nd);
        if (kl < 1 || k[0] != LM_KEY_PREFIX) {
            return kv_lmdb_damaged(db, what,
                                   "page %llu: node %u has a key of %zu bytes without the "
                                   "prefix",
                                   (unsigned long long)pgno, i, kl);
        }
        /* In order, the first inside lo and the last inside hi: all are inside. */
        if ((prev ? key_cmp(prev, prev_len, k, kl) >= 0
                  : lo.key && key_cmp(k, kl, lo.key, lo.len) < 0) ||
            (i == n - 1 && hi.key && key_cmp(k, kl, hi.key, hi.len) >= 0)) {
            return kv_lmdb_damaged(db, what, "page %llu: node %u is out of key order",
                                   (unsigned long long)pgno, i);
        }
        if (leaf && ((node_flags(nd) & ~NODE_BIGDATA) != 0 || node_dsize(nd) < LM_CRC_BYTES ||
                     node_dsize(nd) > LM_CRC_BYTES + KV_MAX_VALUE_BYTES)) {
            return kv_lmdb_damaged(db, what, "page %llu: node %u: flags 0x%x, %u bytes of data",
                                   (unsigned long long)pgno, i, node_flags(nd), node_dsize(nd));
        }
        prev = k;
        prev_len = kl;
    }
    for (unsigned i = 0; !leaf && i < n; i++) {
        uint64_t child = node_pgno(kv_lmdb_page_node(p, i));
        if (child < 2 || child > s->last_pg) {
            return kv_lmdb_damaged(db, what, "page %llu: node %u links to page %llu",
                                   (unsigned long long)pgno, i, (unsigned long long)child);
        }
    }
    *cache = (struct lm_checked){s->txnid, pgno, lo.key, hi.key, n, full || leaf};
    *out = p;
    *n_out = n;
    return 0;
}

/* Reads the record of leaf node nd (its value from overflow pages if it is there) and checks
 * it against its checksum. *k, *v: the LMDB key, and the value with its checksum in front. */
int kv_lmdb_record_read(const struct lm_pages *db, const struct lm_snap *s, const uint8_t *nd,
                        const char *what, const uint8_t **k, size_t *kl, const uint8_t **v,
                        size_t *vl)
{
    *k = nd + NODE_HDR;
    *kl = node_ksize(nd);
    *v = *k + *kl;
    *vl = node_dsize(nd);
    if (node_flags(nd) & NODE_BIGDATA) {
        uint64_t pg = rd64(*v), pages;
        const uint8_t *op;
        if (pg < 2 || pg > s->last_pg) {
            return kv_lmdb_damaged(db, what, "a value on page %llu", (unsigned long long)pg);
        }
        op = db->map + pg * db->psize;
        pages = rd32(op + 12);
        if (rd64(op) != pg || rd16(op + 10) != PAGE_OVERFLOW || pages == 0 ||
            pages - 1 > s->last_pg - pg || PAGE_HDR + (uint64_t)*vl > pages * db->psize) {
            return kv_lmdb_damaged(db, what, "overflow page %llu", (unsigned long long)pg);
        }
        *v = op + PAGE_HDR;
    }
    if (rd_u32le(*v) != kv_lmdb_record_crc(*k, *kl, *v + LM_CRC_BYTES, *vl - LM_CRC_BYTES)) {
        return kv_lmdb_damaged(db, what, "a record fails its checksum");
    }
    return 0;
}

/* A path from the root to a leaf, one step per level: the page (checked), its node count, the
 * node followed (in the leaf: the record at hand, or key's place) and the key bounds the page
 * was checked against. It stays valid while the snapshot's transaction lives. */
static struct bound node_bound(const uint8_t *p, unsigned i)
{
    const uint8_t *nd = kv_lmdb_page_node(p, i);
    return (struct bound){nd + NODE_HDR, node_ksize(nd)};
}

static int prefixed(struct bound b)
{
    return b.len >= 1 && b.key[0] == LM_KEY_PREFIX;
}

/* The bounds of the child a branch step follows: its separator and the next one. A walk by key
 * checks a branch page without the order of all its separators (page_check, full 0): the two
 * around the child stand for them, prefixed, in order and inside the page's own bounds. */
static int child_bounds(const struct lm_pages *db, const struct walk_step *w, struct bound *lo,
                        struct bound *hi, const char *what)
{
    int has_lo = w->a > 0, has_hi = w->a + 1 < w->n;
    *lo = has_lo ? node_bound(w->p, w->a) : w->lo;
    *hi = has_hi ? node_bound(w->p, w->a + 1) : w->hi;
    if ((has_lo && !prefixed(*lo)) || (has_hi && !prefixed(*hi)) ||
        (lo->key && hi->key && key_cmp(lo->key, lo->len, hi->key, hi->len) >= 0) ||
        (has_lo && w->lo.key && key_cmp(lo->key, lo->len, w->lo.key, w->lo.len) < 0) ||
        (has_hi && w->hi.key && key_cmp(hi->key, hi->len, w->hi.key, w->hi.len) > 0)) {
        return kv_lmdb_damaged(db, what,
                               "page %llu: the separators around node %u are out of order",
                               (unsigned long long)w->pgno, w->a);
    }
    return 0;
}

/* Fills path[level..] from page pgno (whose keys must lie in [lo, hi)) down to a leaf: by key
 * (the last child whose separator is <= key; in the leaf, the first record >= key), or with
 * key NULL along the first (dir > 0) or the last (dir < 0) child of every page. */
static int path_down(const struct lm_pages *db, const struct lm_snap *s, struct walk_step *path,
                     unsigned level, uint64_t pgno, struct bound lo, struct bound hi,
                     const uint8_t *key, size_t key_len, int dir, const char *what)
{
    for (;; level++) {
        struct walk_step *w = &path[level];
        int leaf = level == s->depth - 1;
        int rc = page_check(db, s, pgno, leaf, key == NULL, lo, hi, what, &w->p, &w->n);
        if (rc != 0) {
            return rc;
        }
        w->pgno = pgno;
        w->lo = lo;
        w->hi = hi;
        if (!key) {
            w->a = dir > 0 ? 0 : w->n - 1;
        } else {
            /* Branch: the first separator > key, less one. Leaf: the first record >= key. */
            unsigned a = leaf ? 0 : 1, b = w->n;
            while (a < b) {
                unsigned mid = a + (b - a) / 2;
                const uint8_t *nd = kv_lmdb_page_node(w->p, mid);
                int c = key_cmp(nd + NODE_HDR, node_ksize(nd), key, key_len);
                if (leaf ? c < 0 : c <= 0) {
                    a = mid + 1;
                } else {
                    b = mid;
                }
            }
            w->a = leaf ? a : a - 1;
        }
        if (leaf) {
            return 0;
        }
        rc = child_bounds(db, w, &lo, &hi, what);
        if (rc != 0) {
            return rc;
        }
        if (key && ((lo.key && key_cmp(key, key_len, lo.key, lo.len) < 0) ||
                    (hi.key && key_cmp(key, key_len, hi.key, hi.len) >= 0))) {
            return kv_lmdb_damaged(db, what,
                                   "page %llu: the separators around node %u are out of order",
                                   (unsigned long long)pgno, w->a);
        }
        pgno = node_pgno(kv_lmdb_page_node(w->p, w->a));
    }
}

/* Walks snapshot s (not empty) from its root to the leaf where key (an LMDB key) belongs. */
int kv_lmdb_path_seek(const struct lm_pages *db, const struct lm_snap *s, struct walk_step *path,
                      const uint8_t *key, size_t key_len, const char *what)
{
    struct bound none = {NULL, 0};
    return path_down(db, s, path, 0, s->root, none, none, key, key_len, 0, what);
}

/* Moves path to the next leaf (dir > 0; on its first record) or the previous one (on its
 * last). Returns 0, 1 if there is none, or RC_BACKEND (path is then unusable). */
int kv_lmdb_path_step(const struct lm_pages *db, const struct lm_snap *s, struct walk_step *path,
                      int dir, const char *what)
{
    int level = (int)s->depth - 2, rc;
    struct bound lo, hi;
    while (level >= 0 && (dir < 0 ? path[level].a == 0 : path[level].a + 1 >= path[level].n)) {
        level--;
    }
    if (level < 0) {
        return 1;
    }
    path[level].a = dir < 0 ? path[level].a - 1 : path[level].a + 1;
    rc = child_bounds(db, &path[level], &lo, &hi, what);
    if (rc != 0) {
        return rc;
    }
    return path_down(db, s, path, (unsigned)level + 1,
                     node_pgno(kv_lmdb_page_node(path[level].p, path[level].a)), lo, hi, NULL, 0,
                     dir, what);
}

/* The estimated fraction of the entries before the record (or place) path's leaf is at,
 * taking the subtrees of a page as equally large. */
double kv_lmdb_path_frac(const struct lm_snap *s, const struct walk_step *path)
{
    double below = 0, width = 1;
    for (unsigned l = 0; l < s->depth; l++) {
        width /= path[l].n;
        below += width * path[l].a;
    }
    return below;
}

/* Proves that key (an LMDB key) is absent from snapshot s: the walk to its place passes, the
 * leaf does not hold it, and the records on either side of its place (in that leaf, or at
 * the near end of the leaf next to it) pass their checksums and lie on either side of key.
 * That last part catches a damaged separator that sent the walk to the wrong leaf. */
int kv_lmdb_miss_prove(const struct lm_pages *db, const struct lm_snap *s, const uint8_t *key,
                       size_t key_len, const char *what)
{
    struct walk_step path[LM_MAX_DEPTH], side[LM_MAX_DEPTH];
    const struct walk_step *leaf;
    int rc;

    if (s->depth == 0) {
        return 0;
    }
    leaf = &path[s->depth - 1];
    rc = kv_lmdb_path_seek(db, s, path, key, key_len, what);
    if (rc != 0) {
        return rc;
    }
    if (leaf->a < leaf->n) {
        const uint8_t *nd = kv_lmdb_page_node(leaf->p, leaf->a);
        if (key_cmp(nd + NODE_HDR, node_ksize(nd), key, key_len) == 0) {
            return kv_lmdb_damaged(db, what, "LMDB does not find a key that its pages hold");
        }
    }
    for (int dir = -1; dir <= 1; dir += 2) {
        const struct walk_step *w = leaf;
        const uint8_t *nd, *k, *v;
        size_t kl, vl;
        unsigned i = leaf->a;
        if (dir < 0 ? i == 0 : i == leaf->n) {
            memcpy(side, path, s->depth * sizeof(path[0]));
            rc = kv_lmdb_path_step(db, s, side, dir, what);
            if (rc == 1) {
                continue; /* key's place is before the first record, or after the last */
            }
            if (rc != 0) {
                return rc;
            }
            w = &side[s->depth - 1];
            i = w->a + (dir < 0 ? 1 : 0);
        }
        nd = kv_lmdb_page_node(w->p, dir < 0 ? i - 1 : i);
        rc = kv_lmdb_record_read(db, s, nd, what, &k, &kl, &v, &vl);
        if (rc != 0) {
            return rc;
        }
        if (dir * key_cmp(k, kl, key, key_len) <= 0) {
            return kv_lmdb_damaged(db, what, "the records around a key's place are out of order");
        }
    }
    return 0;
}

/* Checks a record LMDB returned (pointers into its map) before it is used: the prefix, that
 * the value lies where its node says (inside the leaf page, or on overflow pages inside the
 * file), and the checksum. */
int kv_lmdb_entry_check(const struct lm_pages *db, const MDB_val *k, const MDB_val *v,
                        const char *what)
{
    const uint8_t *key = k->mv_data, *val = v->mv_data;
    if (k->mv_size < 1 || key[0] != LM_KEY_PREFIX) {
        return kv_lmdb_damaged(db, what, "a key of %zu bytes without the prefix", k->mv_size);
    }
    if (v->mv_size < LM_CRC_BYTES || v->mv_size > LM_CRC_BYTES + KV_MAX_VALUE_BYTES) {
        return kv_lmdb_damaged(db, what, "a value of %zu bytes", v->mv_size);
    }
    if (db->node_bounds) {
        const uint8_t *nd = key - NODE_HDR;
        size_t off = (uintptr_t)nd & (db->psize - 1);
        if (node_ksize(nd) != k->mv_size) {
            return kv_lmdb_damaged(db, what, "a node whose key size disagrees with LMDB's");
        }
        if (node_flags(nd) & NODE_BIGDATA) {
            const uint8_t *op = val - PAGE_HDR;
            uint64_t pg, pages = rd32(op + 12);
            MDB_envinfo info;
            if (off + NODE_HDR + k->mv_size + 8 > db->psize) {
                return kv_lmdb_damaged(db, what, "a node across its page's end");
            }
            pg = rd64(key + k->mv_size);
            mdb_env_info(db->env, &info);
            if (rd64(op) != pg || rd16(op + 10) != PAGE_OVERFLOW || pages == 0 ||
                pg + pages - 1 > info.me_last_pgno ||
                PAGE_HDR + (uint64_t)v->mv_size > pages * db->psize) {
                return kv_lmdb_damaged(db, what, "overflow page %llu", (unsigned long long)pg);
            }
        } else if (val != key + k->mv_size || node_dsize(nd) != v->mv_size ||
                   off + NODE_HDR + k->mv_size + v->mv_size > db->psize) {
            return kv_lmdb_damaged(db, what, "a value outside its leaf page");
        }
    }
    if (rd_u32le(val) !=
        kv_lmdb_record_crc(key, k->mv_size, val + LM_CRC_BYTES, v->mv_size - LM_CRC_BYTES)) {
        return kv_lmdb_damaged(db, what, "a record fails its checksum");
    }
    return 0;
}
