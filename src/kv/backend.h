/* What a kv backend implements (only src/kv/ includes this file).
 *
 * A backend is a const struct kv_ops table. Its handles start with the generic part (struct
 * kv / struct kv_iter, whose first member is the ops pointer), so kv.c dispatches through
 * kv->ops without knowing the backend, and the backend converts the pointer back to its own
 * struct. kv.c checks arguments, the BACKEND marker and the store's sync option before it
 * calls a backend, so the backends do not repeat those checks.
 */
#ifndef BITNODE_KV_BACKEND_H
#define BITNODE_KV_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "kv/kv.h"
#include "util/buf.h"

struct kv {
    const struct kv_ops *ops;
    int sync_all; /* the store's sync option, applied by kv.c */
};

struct kv_iter {
    const struct kv_ops *ops;
};

/* A batch: records of u8 op, u32le key length, [u32le value length,] key, [value]. */
struct kv_batch {
    struct buf data;
    size_t count;
    size_t bytes;
};

enum { KV_OP_PUT = 1, KV_OP_DELETE = 2 };

struct kv_batch_op {
    int op; /* KV_OP_PUT or KV_OP_DELETE */
    const uint8_t *key;
    size_t key_len;
    const uint8_t *val; /* NULL for deletes */
    size_t val_len;
};

struct kv_ops {
    const char *name;
    /* 1 if the store lives in a directory (kv.c manages the BACKEND marker there). */
    int persistent;

    /* Each returns 0 or a negative RC_*, with kv_set_error() called on failure. */
    int (*open)(struct kv **out, const char *path, const struct kv_options *opt);
    int (*close)(struct kv *kv);
    int (*destroy)(const char *path);
    int (*get)(struct kv *kv, struct buf *val, const uint8_t *key, size_t key_len);
    int (*write)(struct kv *kv, const struct kv_batch *b, int sync);
    int (*iter_new)(struct kv *kv, struct kv_iter **out);
    void (*iter_free)(struct kv_iter *it);
    int (*iter_seek)(struct kv_iter *it, const uint8_t *key, size_t key_len);
    int (*iter_seek_first)(struct kv_iter *it);
    int (*iter_next)(struct kv_iter *it);
    int (*iter_valid)(const struct kv_iter *it);
    const uint8_t *(*iter_key)(const struct kv_iter *it, size_t *len);
    const uint8_t *(*iter_value)(const struct kv_iter *it, size_t *len);
    int (*stats)(struct kv *kv, struct kv_stats *out);
    int (*approximate_size)(struct kv *kv, uint64_t *out, const uint8_t *begin, size_t begin_len,
                            const uint8_t *end, size_t end_len);
};

/** Reads the operation at *pos of b into *op and advances *pos.
 *  Returns 1 while there was one, 0 at the end. Pointers in *op borrow from b. */
int kv_batch_next(const struct kv_batch *b, size_t *pos, struct kv_batch_op *op);

/** Sets this thread's kv error message (what kv_last_error() returns). */
void kv_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Unsigned byte-wise comparison, the order every backend iterates in. */
int kv_key_cmp(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len);

/** Sums the disk space of the regular files directly inside dir (0 if it does not exist). */
uint64_t kv_dir_bytes(const char *dir);

/** Joins dir and name into a new string (free() it). */
char *kv_path_join(const char *dir, const char *name);

#endif
