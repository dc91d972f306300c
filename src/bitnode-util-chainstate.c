/* bitnode-util dump-chainstate / load-chainstate: moving a datadir to another key-value
 * backend without a resync. Each build carries one backend, so the source's build writes
 * every store of the datadir (block index, chainstate, indexes) record by record into one
 * file, and the target's build rebuilds the stores from it beside the same blk/rev files.
 * Format: doc/files.md, "Chainstate dump". Records are written in key order, which every
 * backend shares (bytewise), so a dump does not depend on the backend it came from.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "consensus/params.h"
#include "crypto/hash.h"
#include "kv/kv.h"
#include "primitives/serialize.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define DUMP_MAGIC "BNCSDUMP"
#define DUMP_VERSION 1
/* Bytes of records per batch when loading. */
#define LOAD_BATCH_BYTES (16u << 20)

/* The stores a datadir may hold, relative to its network folder. */
static const char *const STORES[] = {"blocks/index",
                                     "chainstate",
                                     "indexes/txindex",
                                     "indexes/blockfilter/basic/db",
                                     "indexes/coinstatsindex/db",
                                     "indexes/txospenderindex/db"};
#define N_STORES (sizeof(STORES) / sizeof(STORES[0]))
/* Files of the network folder that do not depend on the backend, carried along. */
static const char *const FILES[] = {"peers.dat", "banlist.json", "mempool.dat",
                                    "fee_estimates.dat"};
#define N_FILES (sizeof(FILES) / sizeof(FILES[0]))
/* Left in the target while a load runs: bitnoded refuses to start on it. */
#define PARTIAL "load-chainstate.partial"

struct opts {
    const char *datadir, *file, *blocksfrom;
    int hardlink;
};

/* ---- writing --------------------------------------------------------------------------- */

struct out {
    FILE *f;
    struct hash_sha256_ctx h;
    int failed;
};

static void out_bytes(struct out *o, const void *p, size_t n)
{
    hash_sha256_write(&o->h, p, n);
    if (n && fwrite(p, 1, n, o->f) != n) {
        o->failed = 1;
    }
}

static void out_buf(struct out *o, struct buf *b)
{
    out_bytes(o, b->data, b->len);
    buf_reset(b);
}

static int dump_store(struct out *o, const char *net_dir, const char *name, uint64_t *records)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/%s", net_dir, name);
    if (!fs_is_dir(path)) {
        return RC_NOT_FOUND;
    }
    struct kv_options ko;
    kv_options_init(&ko);
    ko.create_if_missing = 0;
    struct kv *kv;
    struct kv_iter *it = NULL;
    int rc = kv_open(&kv, kv_default_ops(), path, &ko);
    if (rc != RC_OK) {
        fprintf(stderr, "cannot open %s: %s\n", path, kv_last_error(NULL));
        return rc;
    }
    struct buf b;
    buf_init(&b);
    buf_append(&b, "S", 1);
    ser_put_varbytes(&b, (const uint8_t *)name, strlen(name));
    out_buf(o, &b);
    if ((rc = kv_iter_new(kv, &it)) == RC_OK) {
        rc = kv_iter_seek_first(it);
    }
    while (rc == RC_OK && kv_iter_valid(it) && !o->failed) {
        size_t kl, vl;
        const uint8_t *k = kv_iter_key(it, &kl), *v = kv_iter_value(it, &vl);
        ser_put_varbytes(&b, k, kl);
        ser_put_varbytes(&b, v, vl);
        out_buf(o, &b);
        ++*records;
        rc = kv_iter_next(it);
    }
    ser_put_compact(&b, 0); /* the end of the store's records: an empty key */
    out_buf(o, &b);
    buf_clear(&b);
    kv_iter_free(it);
    kv_close(kv);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The blk/rev files of a blocks folder, sorted (a pruned node lacks the first ones), and
 * their XOR key, xor.dat (doc/files.md, "The XOR key"), which goes with them. */
static char **block_file_names(const char *blocks, size_t *n)
{
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    DIR *d = opendir(blocks);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        unsigned num;
        char tail[8];
        if (((sscanf(de->d_name, "blk%5u.%3s", &num, tail) == 2 ||
             sscanf(de->d_name, "rev%5u.%3s", &num, tail) == 2) &&
             strlen(de->d_name) == 12 && strcmp(de->d_name + 8, ".dat") == 0) ||
            strcmp(de->d_name, "xor.dat") == 0) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 64;
                v = xrealloc(v, cap * sizeof(*v));
            }
            v[(*n)++] = xstrdup(de->d_name);
        }
    }
    if (d) {
        closedir(d);
    }
    if (*n) {
        qsort(v, *n, sizeof(*v), cmp_names);
    }
    return v;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i]);
    }
    free(v);
}

/* 'F' entries: each blk/rev file's name and size, checked by the load. */
static void dump_block_files(struct out *o, const char *net_dir, uint64_t *bytes)
{
    char blocks[4300];
    snprintf(blocks, sizeof(blocks), "%s/blocks", net_dir);
    size_t n;
    char **names = block_file_names(blocks, &n);
    struct buf b;
    buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", blocks, names[i]);
        if (stat(path, &st) == 0) {
            buf_append(&b, "F", 1);
            ser_put_varbytes(&b, (const uint8_t *)names[i], strlen(names[i]));
            buf_put_u64le(&b, (uint64_t)st.st_size);
            out_buf(o, &b);
            *bytes += (uint64_t)st.st_size;
        }
    }
    buf_clear(&b);
    free_names(names, n);
}

/* 'A' entries: the backend-free files of the network folder, whole. */
static int dump_files(struct out *o, const char *net_dir)
{
    struct buf b, data;
    buf_init(&b);
    buf_init(&data);
    int rc = RC_OK;
    for (size_t i = 0; i < N_FILES && rc == RC_OK; i++) {
        char path[4300], err[256];
        snprintf(path, sizeof(path), "%s/%s", net_dir, FILES[i]);
        buf_reset(&data);
        rc = fs_read_file(path, &data, (size_t)1 << 31, err, sizeof(err));
        if (rc == RC_NOT_FOUND) {
            rc = RC_OK;
            continue;
        }
        if (rc != RC_OK) {
            fprintf(stderr, "%s\n", err);
            break;
        }
        buf_append(&b, "A", 1);
        ser_put_varbytes(&b, (const uint8_t *)FILES[i], strlen(FILES[i]));
        ser_put_varbytes(&b, data.data, data.len);
        out_buf(o, &b);
    }
    buf_clear(&data);
    buf_clear(&b);
    return rc;
}

static int util_dump_chainstate(const struct opts *op, const struct chain_params *chain,
                         const char *net_dir)
{
    struct out o = {.f = fopen(op->file, "wb")};
    if (!o.f) {
        fprintf(stderr, "cannot write %s: %s\n", op->file, strerror(errno));
        return 1;
    }
    hash_sha256_init(&o.h);
    struct buf b;
    buf_init(&b);
    buf_append(&b, DUMP_MAGIC, 8);
    buf_put_u32le(&b, DUMP_VERSION);
    buf_append(&b, chain->magic, 4);
    out_buf(&o, &b);
    uint64_t records = 0, bytes = 0;
    int rc = RC_OK, stores = 0;
    for (size_t i = 0; i < N_STORES && rc == RC_OK; i++) {
        uint64_t before = records;
        rc = dump_store(&o, net_dir, STORES[i], &records);
        if (rc == RC_NOT_FOUND && i >= 2) {
            rc = RC_OK; /* an index that is not on */
        } else if (rc == RC_OK) {
            stores++;
            printf("%s: %llu records\n", STORES[i], (unsigned long long)(records - before));
        } else if (rc == RC_NOT_FOUND) {
            fprintf(stderr, "%s/%s: no such store (is this a bitnode datadir of the %s chain?)\n",
                    net_dir, STORES[i], chain->name);
        }
    }
    if (rc == RC_OK) {
        dump_block_files(&o, net_dir, &bytes);
        rc = dump_files(&o, net_dir);
    }
    uint8_t sum[32];
    out_bytes(&o, "E", 1); /* the checksum covers everything before it, 'E' included */
    hash_sha256_final(&o.h, sum);
    buf_append(&b, sum, 32);
    if (rc == RC_OK && (fwrite(b.data, 1, b.len, o.f) != b.len || o.failed || fflush(o.f) != 0 ||
                        fsync(fileno(o.f)) != 0)) {
        fprintf(stderr, "cannot write %s: %s\n", op->file, strerror(errno));
        rc = RC_IO;
    }
    buf_clear(&b);
    fclose(o.f);
    if (rc != RC_OK) {
        unlink(op->file);
        return 1;
    }
    printf("wrote %s: %d stores, %llu records; block files of %llu bytes stay where they are\n",
           op->file, stores, (unsigned long long)records, (unsigned long long)bytes);
    return 0;
}

/* ---- loading --------------------------------------------------------------------------- */

struct in {
    FILE *f;
    struct hash_sha256_ctx h;
    const char *path;
};

/* Reads n bytes (hashed). 0, or RC_CORRUPT at a short file. */
static int in_bytes(struct in *r, void *p, size_t n)
{
    if (n && fread(p, 1, n, r->f) != n) {
        fprintf(stderr, "%s: the dump ends early (truncated?)\n", r->path);
        return RC_CORRUPT;
    }
    hash_sha256_write(&r->h, p, n);
    return RC_OK;
}

static int in_compact(struct in *r, uint64_t *v)
{
    uint8_t c, w[8] = {0};
    int rc = in_bytes(r, &c, 1);
    size_t n = c == 253 ? 2 : c == 254 ? 4 : c == 255 ? 8 : 0;
    if (rc == RC_OK && n) {
        rc = in_bytes(r, w, n);
    }
    *v = n ? rd_u64le(w) : c;
    return rc;
}

/* A length-prefixed field of at most max bytes, into out (replaced). */
static int in_varbytes(struct in *r, struct buf *out, uint64_t max)
{
    uint64_t n;
    int rc = in_compact(r, &n);
    if (rc == RC_OK && n > max) {
        fprintf(stderr, "%s: a field of %llu bytes: not a chainstate dump\n", r->path,
                (unsigned long long)n);
        return RC_CORRUPT;
    }
    buf_reset(out);
    if (rc == RC_OK) {
        buf_reserve(out, (size_t)n);
        rc = in_bytes(r, out->data, (size_t)n);
        out->len = (size_t)n;
    }
    return rc;
}

static int known(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(name, list[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

/* An 'S' section: the store name's records, written into a new store of this build. */
static int load_store(struct in *r, const char *net_dir, const char *name, uint64_t *records)
{
    char path[4300], err[256];
    snprintf(path, sizeof(path), "%s/%s", net_dir, name);
    char *slash = strrchr(path, '/');
    *slash = 0;
    int rc = fs_mkdir_p(path, err, sizeof(err));
    *slash = '/';
    struct kv *kv;
    struct kv_options ko;
    kv_options_init(&ko);
    if (rc != RC_OK) {
        fprintf(stderr, "%s\n", err);
        return rc;
    }
    if ((rc = kv_open(&kv, kv_default_ops(), path, &ko)) != RC_OK) {
        fprintf(stderr, "cannot create %s: %s\n", path, kv_last_error(NULL));
        return rc;
    }
    struct kv_batch *b = kv_batch_new();
    struct buf k, v;
    buf_init(&k);
    buf_init(&v);
    size_t pending = 0;
    for (;;) {
        if ((rc = in_varbytes(r, &k, 1 << 20)) != RC_OK || k.len == 0 ||
            (rc = in_varbytes(r, &v, 1u << 30)) != RC_OK) {
            break;
        }
        kv_batch_put(b, k.data, k.len, v.data, v.len);
        ++*records;
        pending += k.len + v.len;
        if (pending >= LOAD_BATCH_BYTES) {
            if ((rc = kv_write(kv, b, 0)) != RC_OK) {
                break;
            }
            kv_batch_clear(b);
            pending = 0;
        }
    }
    if (rc == RC_OK && (rc = kv_write(kv, b, 1)) != RC_OK) {
        fprintf(stderr, "cannot write %s: %s\n", path, kv_last_error(NULL));
    }
    buf_clear(&k);
    buf_clear(&v);
    kv_batch_free(b);
    kv_close(kv);
    return rc;
}

/* Copies src to dst through dst.tmp (synced, then renamed). */
static int copy_file(const char *src, const char *dst)
{
    char tmp[4500];
    snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
    int in = open(src, O_RDONLY), out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int rc = in >= 0 && out >= 0 ? RC_OK : RC_IO;
    static char chunk[1 << 20];
    ssize_t n = 0;
    while (rc == RC_OK && (n = read(in, chunk, sizeof(chunk))) > 0) {
        rc = write(out, chunk, (size_t)n) == n ? RC_OK : RC_IO;
    }
    if (rc == RC_OK && (n < 0 || fsync(out) != 0)) {
        rc = RC_IO;
    }
    if (in >= 0) {
        close(in);
    }
    if (out >= 0 && close(out) != 0) {
        rc = RC_IO;
    }
    if (rc == RC_OK && rename(tmp, dst) != 0) {
        rc = RC_IO;
    }
    if (rc != RC_OK) {
        fprintf(stderr, "cannot copy %s to %s: %s\n", src, dst, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

/* 1 if the files a and dir/name hold the same bytes (both readable). */
static int same_contents(const char *a, const char *dir, const char *name)
{
    char b[4400], err[256];
    struct buf x, y;
    buf_init(&x);
    buf_init(&y);
    snprintf(b, sizeof(b), "%s/%s", dir, name);
    int same = fs_read_file(a, &x, 1 << 20, err, sizeof(err)) == RC_OK &&
               fs_read_file(b, &y, 1 << 20, err, sizeof(err)) == RC_OK && x.len == y.len &&
               memcmp(x.data, y.data, x.len) == 0;
    buf_clear(&x);
    buf_clear(&y);
    return same;
}

/* An 'F' entry: blocks/name of the given size, there already, or linked or copied from
 * -blocksfrom. */
static int load_block_file(const struct opts *op, const char *net_dir, const char *name,
                           uint64_t size, uint64_t *moved)
{
    char dst[4400], src[4400];
    struct stat st;
    snprintf(dst, sizeof(dst), "%s/blocks/%s", net_dir, name);
    if (stat(dst, &st) == 0) {
        if ((uint64_t)st.st_size == size && strcmp(name, "xor.dat") == 0 && op->blocksfrom &&
            !same_contents(dst, op->blocksfrom, name)) {
            /* A node started there once made a key of its own: the files would not read. */
            fprintf(stderr, "%s is another XOR key than the source's (%s/%s): the block "
                            "files would not read with it; delete it and load again\n",
                    dst, op->blocksfrom, name);
            return RC_INVALID;
        }
        if ((uint64_t)st.st_size == size) {
            return RC_OK;
        }
        fprintf(stderr, "%s has %lld bytes, the dump's source had %llu: not the same files\n",
                dst, (long long)st.st_size, (unsigned long long)size);
        return RC_INVALID;
    }
    if (!op->blocksfrom) {
        fprintf(stderr, "%s is missing: copy the source's blk/rev files there or give "
                        "-blocksfrom=<the source's blocks folder>\n", dst);
        return RC_NOT_FOUND;
    }
    snprintf(src, sizeof(src), "%s/%s", op->blocksfrom, name);
    int missing = stat(src, &st) != 0;
    if (missing || (uint64_t)st.st_size != size) {
        fprintf(stderr, "%s: %s\n", src,
                missing ? "missing" : "not the size the dump records (changed since?)");
        return RC_INVALID;
    }
    *moved += size;
    if (op->hardlink && link(src, dst) == 0) {
        return RC_OK;
    }
    return copy_file(src, dst);
}

/* Reads the header: magic, version, and the chain's network magic. */
static int load_header(struct in *r, const struct chain_params *chain)
{
    uint8_t h[16];
    int rc = in_bytes(r, h, sizeof(h));
    if (rc == RC_OK && memcmp(h, DUMP_MAGIC, 8) != 0) {
        fprintf(stderr, "%s is not a chainstate dump (bitnode-util dump-chainstate)\n", r->path);
        return RC_CORRUPT;
    }
    if (rc == RC_OK && rd_u32le(h + 8) != DUMP_VERSION) {
        fprintf(stderr, "%s: dump version %u, this build reads version %d\n", r->path,
                rd_u32le(h + 8), DUMP_VERSION);
        return RC_INVALID;
    }
    if (rc == RC_OK && memcmp(h + 12, chain->magic, 4) != 0) {
        fprintf(stderr, "%s is a dump of another chain than %s (give the chain option the "
                        "source was dumped with)\n", r->path, chain->name);
        return RC_INVALID;
    }
    return rc;
}

/* The sections after the header, up to 'E' and its checksum. */
static int load_sections(struct in *r, const struct opts *op, const char *net_dir,
                         uint64_t *records, uint64_t *moved)
{
    struct buf name, data;
    buf_init(&name);
    buf_init(&data);
    int rc = RC_OK;
    for (;;) {
        uint8_t kind, size[8], want[32], got[32];
        if ((rc = in_bytes(r, &kind, 1)) != RC_OK) {
            break;
        }
        if (kind == 'E') {
            hash_sha256_final(&r->h, got);
            rc = fread(want, 1, 32, r->f) == 32 && memcmp(want, got, 32) == 0 ? RC_OK
                                                                                : RC_CORRUPT;
            if (rc != RC_OK) {
                fprintf(stderr, "%s: the checksum does not match: the dump is damaged\n",
                        r->path);
            }
            break;
        }
        if ((rc = in_varbytes(r, &name, 255)) != RC_OK) {
            break;
        }
        buf_append(&name, "", 1);
        const char *n = (const char *)name.data;
        if (kind == 'S' && known(n, STORES, N_STORES)) {
            rc = load_store(r, net_dir, n, records);
        } else if (kind == 'F' && (rc = in_bytes(r, size, 8)) == RC_OK) {
            rc = load_block_file(op, net_dir, n, rd_u64le(size), moved);
        } else if (kind == 'A' && known(n, FILES, N_FILES) &&
                   (rc = in_varbytes(r, &data, (uint64_t)1 << 31)) == RC_OK) {
            char path[4300], err[256];
            snprintf(path, sizeof(path), "%s/%s", net_dir, n);
            if ((rc = fs_write_file_atomic(path, data.data, data.len, 0600, err,
                                           sizeof(err))) != RC_OK) {
                fprintf(stderr, "%s\n", err);
            }
        } else if (rc == RC_OK) {
            fprintf(stderr, "%s: unknown section '%c' %s: not a chainstate dump\n", r->path,
                    kind, n);
            rc = RC_CORRUPT;
        }
        if (rc != RC_OK) {
            break;
        }
    }
    buf_clear(&name);
    buf_clear(&data);
    return rc;
}

/* Starts a load: refuses a datadir that holds stores (unless a load into it was cut short:
 * then its stores are wiped) and leaves the PARTIAL marker, synced. */
static int begin_load(const char *net_dir, const char *marker)
{
    int partial = access(marker, F_OK) == 0;
    for (size_t i = 0; i < N_STORES; i++) {
        char path[4300];
        snprintf(path, sizeof(path), "%s/%s", net_dir, STORES[i]);
        if (!fs_is_dir(path)) {
            continue;
        }
        if (!partial) {
            fprintf(stderr, "%s already exists: load into a datadir without a chainstate\n",
                    path);
            return RC_INVALID;
        }
        if (kv_destroy(kv_default_ops(), path) != RC_OK) {
            fprintf(stderr, "cannot wipe %s, left by a load cut short\n", path);
            return RC_IO;
        }
    }
    char err[256];
    int rc = fs_write_file_atomic(marker, "", 0, 0600, err, sizeof(err));
    if (rc != RC_OK) {
        fprintf(stderr, "%s\n", err);
    }
    return rc;
}

static int util_load_chainstate(const struct opts *op, const struct chain_params *chain,
                         const char *net_dir)
{
    char blocks[4300], marker[4300], err[256];
    snprintf(blocks, sizeof(blocks), "%s/blocks", net_dir);
    snprintf(marker, sizeof(marker), "%s/%s", net_dir, PARTIAL);
    struct in r = {.f = fopen(op->file, "rb"), .path = op->file};
    if (!r.f) {
        fprintf(stderr, "cannot read %s: %s\n", op->file, strerror(errno));
        return 1;
    }
    hash_sha256_init(&r.h);
    int lock_fd = -1;
    uint64_t records = 0, moved = 0;
    int rc = load_header(&r, chain);
    if (rc == RC_OK && ((rc = fs_mkdir_p(blocks, err, sizeof(err))) != RC_OK ||
                        (rc = fs_lock_dir(net_dir, &lock_fd, err, sizeof(err))) != RC_OK)) {
        fprintf(stderr, "%s\n", err);
    }
    if (rc == RC_OK && (rc = begin_load(net_dir, marker)) == RC_OK &&
        (rc = load_sections(&r, op, net_dir, &records, &moved)) == RC_OK) {
        rc = unlink(marker) == 0 ? RC_OK : RC_IO;
    }
    fclose(r.f);
    fs_unlock_dir(lock_fd);
    if (rc != RC_OK) {
        fprintf(stderr, "load-chainstate did not finish; %s stays refused by bitnoded until a "
                        "load into it finishes\n", net_dir);
        return 1;
    }
    printf("loaded %s into %s (%s): %llu records, %llu bytes of block files %s\n", op->file,
           net_dir, kv_backend_name(), (unsigned long long)records, (unsigned long long)moved,
           op->hardlink ? "linked or copied" : "copied");
    return 0;
}

/* ---- the commands ----------------------------------------------------------------------- */

int util_cmd_chainstate(int argc, char **argv, const struct chain_params *chain, int load);
int util_cmd_chainstate(int argc, char **argv, const struct chain_params *chain, int load)
{
    struct opts op = {0};
    const char *name;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i] + (argv[i][0] == '-' && argv[i][1] == '-' ? 2 : 1);
        const char *eq = strchr(a, '=');
        if (argv[i][0] != '-') {
            fprintf(stderr, "unexpected argument %s\n", argv[i]);
            return 1;
        } else if (strncmp(a, "datadir=", 8) == 0) {
            op.datadir = eq + 1;
        } else if (!load && strncmp(a, "out=", 4) == 0) {
            op.file = eq + 1;
        } else if (load && strncmp(a, "in=", 3) == 0) {
            op.file = eq + 1;
        } else if (load && strncmp(a, "blocksfrom=", 11) == 0) {
            op.blocksfrom = eq + 1;
        } else if (load && strcmp(a, "hardlink") == 0) {
            op.hardlink = 1;
        } else if (chain_params_option(a, &chain, &name)) {
            if (!chain) {
                fprintf(stderr, "unknown chain '%s'\n", name);
                return 1;
            }
        } else {
            fprintf(stderr, "unknown option %s for %s-chainstate\n", argv[i],
                    load ? "load" : "dump");
            return 1;
        }
    }
    if (!op.file || !*op.file) {
        fprintf(stderr, "%s-chainstate needs -%s=FILE\n", load ? "load" : "dump",
                load ? "in" : "out");
        return 1;
    }
    char *datadir = op.datadir ? xstrdup(op.datadir) : fs_default_datadir();
    char *net_dir = fs_path_join(datadir, fs_chain_info(chain->name)->subdir);
    int rc;
    if (load) {
        rc = util_load_chainstate(&op, chain, net_dir);
    } else {
        int lock_fd = -1;
        char err[256];
        if (fs_lock_dir(net_dir, &lock_fd, err, sizeof(err)) != RC_OK) {
            fprintf(stderr, "%s\n", err);
            rc = 1;
        } else {
            rc = util_dump_chainstate(&op, chain, net_dir);
            fs_unlock_dir(lock_fd);
        }
    }
    free(net_dir);
    free(datadir);
    return rc;
}
