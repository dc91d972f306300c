/* The key-value interface: one contract, five backends (doc/architecture.md, "Layers").
 *
 * Everything above src/kv/ talks to a store through these functions only. The backend is a
 * table of operations (struct kv_ops): LevelDB, RocksDB, LMDB or Berkeley DB 5.3, picked at
 * compile time (kv_default_ops()), and an in-memory B-tree (kv_mem_ops) that is always
 * compiled for tests and benchmarks. All of them behave the same:
 *
 *  - keys and values are byte strings (keys may be empty or contain zero bytes; values may be
 *    empty); keys up to KV_MAX_KEY_BYTES, values up to KV_MAX_VALUE_BYTES.
 *  - kv_get() tells "found", "not found" (RC_NOT_FOUND) and "the store failed" (RC_BACKEND)
 *    apart. A failure is never reported as a miss: a store that cannot answer is a system
 *    failure for the caller, never a verdict on a block (doc/conventions.md, BIP 50).
 *  - kv_write() applies a batch atomically: after a crash at any instant (SIGKILL, power
 *    cut with sync), all of the batch or none of it is visible. Operations inside a batch
 *    apply in the order they were added. A batch that the backend cannot apply (out of
 *    locks, disk full) fails as a whole with RC_BACKEND and changes nothing.
 *  - iterators are ordered by unsigned byte-wise key comparison (shorter key first when one
 *    is a prefix of the other) and see a snapshot: the store as it was when the iterator was
 *    created, unaffected by later writes from any thread.
 *
 * Errors: every failing call returns a negative code from util/rc.h and leaves a message
 * (with the backend's own words) that kv_last_error() returns, like errno: per thread.
 *
 * Threads: a struct kv may be used from several threads at once (gets, writes and iterators
 * from different threads); writes are serialized inside. A get sees the store before or
 * after a batch, never part of it; on the persistent backends it does not wait while a
 * large batch is written.
 * A struct kv_batch or kv_iter belongs to one thread at a time. A thread
 * may write while it has iterators open.
 *
 * On disk: the persistent backends keep one directory per store, with a marker file BACKEND
 * naming the backend that wrote it; see doc/files.md "Key-value stores". A store Bitcoin
 * Core wrote (LevelDB, no marker, Core's obfuscation key) is never opened as ours.
 */
#ifndef BITNODE_KV_KV_H
#define BITNODE_KV_KV_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* LMDB's limit (511 bytes in Debian's build) less the byte src/kv/lmdb.c puts in front of every
 * key so that the empty key can be stored. The node's keys are under 40 bytes. */
#define KV_MAX_KEY_BYTES 510u
#define KV_MAX_VALUE_BYTES (256u * 1024u * 1024u)
#define KV_ERR_LEN 1024
#define KV_STATS_TEXT_LEN 1024

struct kv;
struct kv_batch;
struct kv_iter;
struct kv_ops;

/* The backends. Only kv_mem_ops and the configured backend (kv_default_ops()) are linked in:
 * refer to the others only under #ifdef USE_KV_LEVELDB / USE_KV_BDB / USE_KV_ROCKSDB /
 * USE_KV_LMDB. */
extern const struct kv_ops kv_leveldb_ops, kv_bdb_ops, kv_rocksdb_ops, kv_lmdb_ops, kv_mem_ops;

struct kv_options {
    size_t cache_bytes;     /* leveldb: half block cache, a quarter write buffer; bdb: mpool */
    int bloom_bits_per_key; /* leveldb bloom filter bits per key; 0 = no filter */
    int max_open_files;     /* leveldb table files kept open (fd budget) */
    int create_if_missing;  /* create the store (and its directory) if absent */
    int sync;               /* every kv_write() syncs, whatever its sync argument */
    int compression;        /* leveldb: snappy block compression */
    int paranoid_checks;    /* leveldb: fail on any inconsistency found while opening */
};

/** Fills opt with the defaults: 8 MiB cache, 10 bloom bits per key, 64 open files,
 *  create_if_missing 1, sync 0, compression 0 (as Core: coin records are hashes and
 *  scripts, which snappy does not shrink, and decompressing every block read costs the
 *  reads), paranoid_checks 1 (as Core's every LevelDB: a damaged log or table is an
 *  error at open, not records silently dropped). */
void kv_options_init(struct kv_options *opt);

/** The backend configure chose (--with-backend=leveldb|bdb|rocksdb|lmdb). */
const struct kv_ops *kv_default_ops(void);
/** Its name, "leveldb", "bdb", "rocksdb" or "lmdb". Static string. */
const char *kv_backend_name(void);
/** The name of a backend table: "leveldb", "bdb", "rocksdb", "lmdb" or "mem". Static
 *  string. */
const char *kv_ops_name(const struct kv_ops *ops);

/** Opens (or creates) the store at path with backend ops.
 *
 *  Returns: 0 and *out set; RC_NOT_FOUND if the store does not exist and create_if_missing
 *           is 0; RC_FOREIGN if it is Bitcoin Core's (a LevelDB store without a marker
 *           holding Core's obfuscation key; the message says what to do); RC_BACKEND if it
 *           is another backend's store or the backend failed to open it; RC_IO if the
 *           directory or the marker cannot be written. kv_last_error(NULL) has the message.
 *  In:      path: the store's directory (created if missing, parents must exist). For mem,
 *           NULL or "" gives an anonymous store freed at close; a non-empty path names a
 *           store that lives until kv_destroy() or process exit, so that close and reopen
 *           see the same data. opt: NULL for the defaults; copied.
 *  Out:     *out: the handle, owned by the caller; release with kv_close().
 */
int kv_open(struct kv **out, const struct kv_ops *ops, const char *path,
            const struct kv_options *opt);

/** Closes the store: waits for nothing (no call may be running on it), flushes, and for bdb
 *  writes a checkpoint and removes log files no longer needed, so that the directory can be
 *  copied elsewhere and opened. Frees kv even when it fails. kv_close(NULL) is a no-op.
 *  Every iterator must have been freed before.
 *  Returns: 0, or RC_BACKEND if flushing failed (the data written so far stays safe). */
int kv_close(struct kv *kv);

/** Removes the store at path and everything in its directory that the backend owns
 *  (including the BACKEND marker, and the directory itself if that leaves it empty).
 *  The store must not be open. A missing store is not an error.
 *  Returns: 0, or RC_IO / RC_BACKEND with a message. */
int kv_destroy(const struct kv_ops *ops, const char *path);

/** Reads the value of key.
 *
 *  Returns: 0 if found (*val replaced by the value); RC_NOT_FOUND if the key is absent
 *           (*val emptied); RC_BACKEND if the store failed (message in kv_last_error()).
 *  Out:     val: may be NULL to test for presence only.
 *  In:      key/key_len: borrowed for the call.
 */
int kv_get(struct kv *kv, struct buf *val, const void *key, size_t key_len);

/** A new, empty batch of writes. Owned by the caller; release with kv_batch_free(). */
struct kv_batch *kv_batch_new(void);
/** Appends "set key to val" (both copied). A later operation on the same key wins. */
void kv_batch_put(struct kv_batch *b, const void *key, size_t key_len, const void *val,
                  size_t val_len);
/** Appends "remove key" (copied). Removing an absent key is not an error. */
void kv_batch_delete(struct kv_batch *b, const void *key, size_t key_len);
/** Empties the batch, keeping its memory for reuse. */
void kv_batch_clear(struct kv_batch *b);
/** The number of operations in the batch. */
size_t kv_batch_count(const struct kv_batch *b);
/** The bytes of keys and values in the batch (to decide when to write a large one). */
size_t kv_batch_bytes(const struct kv_batch *b);
/** Frees b. kv_batch_free(NULL) is a no-op. */
void kv_batch_free(struct kv_batch *b);

/** Applies every operation of b atomically.
 *
 *  Returns: 0 once the batch is applied: visible to later gets and iterators, and surviving
 *           a crash of this process; with sync (or the store's sync option) also a power
 *           cut. RC_BACKEND if the backend could not apply it: nothing of it was applied.
 *  In:      b: borrowed; unchanged, so it can be written again or cleared.
 */
int kv_write(struct kv *kv, const struct kv_batch *b, int sync);

/** A new iterator over a snapshot of the store, not yet positioned (kv_iter_valid() is 0
 *  until a seek).
 *  Returns: 0 and *out set (owned by the caller: kv_iter_free() before kv_close()), or
 *           RC_BACKEND. */
int kv_iter_new(struct kv *kv, struct kv_iter **out);
/** Positions at the first key >= key (invalid if there is none).
 *  Returns: 0, or RC_BACKEND (the iterator is then invalid). */
int kv_iter_seek(struct kv_iter *it, const void *key, size_t key_len);
/** Positions at the first key. Returns: 0, or RC_BACKEND. */
int kv_iter_seek_first(struct kv_iter *it);
/** Returns 1 if the iterator is on an entry, 0 if past the end, not positioned or failed. */
int kv_iter_valid(const struct kv_iter *it);
/** Moves to the next key. The iterator must be valid.
 *  Returns: 0 (check kv_iter_valid() for the end), or RC_BACKEND. */
int kv_iter_next(struct kv_iter *it);
/** The current key: a borrowed pointer, valid until the iterator moves or is freed.
 *  The iterator must be valid. *len gets its length. */
const uint8_t *kv_iter_key(const struct kv_iter *it, size_t *len);
/** The current value, like kv_iter_key(). */
const uint8_t *kv_iter_value(const struct kv_iter *it, size_t *len);
/** Frees it. kv_iter_free(NULL) is a no-op. */
void kv_iter_free(struct kv_iter *it);

struct kv_stats {
    uint64_t disk_bytes;          /* bytes of the store's files (0 for mem) */
    uint64_t mem_bytes;           /* backend memory in use (caches, tables), approximate */
    uint64_t entries;             /* number of keys when the backend knows it cheaply, else 0 */
    double compaction_seconds;    /* time spent compacting since open (LSM engines), else -1 */
    char text[KV_STATS_TEXT_LEN]; /* one line for logs: backend name and its counters */
};

/** Fills *out with the store's sizes and a one-line summary for logs.
 *  Returns: 0, or RC_BACKEND. */
int kv_stats(struct kv *kv, struct kv_stats *out);

/** Estimates the bytes used by the keys in [begin, end) (end NULL: to the last key).
 *  Returns: 0 and *out set, or RC_BACKEND. Cheap: never reads the whole range on disk. */
int kv_approximate_size(struct kv *kv, uint64_t *out, const void *begin, size_t begin_len,
                        const void *end, size_t end_len);

/** Drops from the process's resident set the pages of store files a backend has mapped
 *  for reading (LevelDB's table files: src/kv/mmap_interpose.c), if the process's resident
 *  file-backed pages exceed above bytes (0: whatever they are); they stay in the page cache,
 *  and the next read maps them again without reading the disk. Returns the bytes of
 *  mappings advised (0 if none were, for a backend that maps none, and in ASan or TSan
 *  builds). Any thread. */
size_t kv_release_mapped(size_t above);
/* What the node lets mapped store pages (with its own code and libraries) add to its
 * resident set before it releases them. */
#define KV_MAPPED_RESIDENT_MAX ((size_t)256 << 20)

/** The message of the last failing kv call made by this thread (kv may be NULL; the
 *  message is per thread, like errno). "" if none failed yet. Valid until the next kv call
 *  on this thread. */
const char *kv_last_error(const struct kv *kv);

/** Tests only: checks the mem backend's B-tree invariants (order, fill, depth, counts).
 *  Returns: 0 if they hold, else RC_CORRUPT with a message. kv must be a mem store. */
int kv_mem_check(struct kv *kv);

#endif
