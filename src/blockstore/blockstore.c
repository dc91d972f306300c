#include "blockstore/blockstore.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/obfuscation.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct file_state {
    struct blockfile_info info;
    int blk_fd, rev_fd;        /* -1 when closed */
    uint32_t blk_alloc, rev_alloc; /* bytes preallocated so far */
    int blk_unsynced, rev_unsynced;
    int info_dirty;
};

struct blockstore {
    char dir[4096];
    uint8_t magic[4];
    struct file_state *files;
    int nfiles;
    char err[512];
    int fault_n, fault_err;
    uint32_t max_file_size;
    uint32_t blk_chunk, rev_chunk;
    int check_for_pruning;   /* a file or chunk was begun since the last look */
    int dir_unsynced;        /* a file was created since the directory's last fsync */
    int out_of_space;        /* a write or an allocation failed for want of disk space */
    int *pruned;             /* file numbers pruned and not yet unlinked */
    int npruned;
    /* Reads from several threads (each opens its file for the read): the file array and
     * infos, which the writer grows (realloc) and prunes under it; a leaf. */
    pthread_mutex_t read_mu;
    struct obfuscation obf; /* the key of blocks/xor.dat (zeros: files as they are) */
    struct buf scratch;     /* the writer's obfuscated copy of what it writes */
};

void blockfile_info_serialize(struct buf *out, const struct blockfile_info *i)
{
    ser_put_varint(out, i->blocks);
    ser_put_varint(out, i->size);
    ser_put_varint(out, i->undo_size);
    ser_put_varint(out, i->height_first);
    ser_put_varint(out, i->height_last);
    ser_put_varint(out, i->time_first);
    ser_put_varint(out, i->time_last);
}

int blockfile_info_parse(struct blockfile_info *i, const uint8_t *p, size_t len)
{
    struct reader r;
    uint64_t v[7];
    reader_init(&r, p, len);
    for (int k = 0; k < 7; k++) {
        if (ser_get_varint(&r, &v[k], "file info") || (k < 5 && v[k] > UINT32_MAX)) {
            return RC_CORRUPT;
        }
    }
    if (reader_expect_end(&r, "file info")) {
        return RC_CORRUPT;
    }
    i->blocks = (uint32_t)v[0];
    i->size = (uint32_t)v[1];
    i->undo_size = (uint32_t)v[2];
    i->height_first = (uint32_t)v[3];
    i->height_last = (uint32_t)v[4];
    i->time_first = v[5];
    i->time_last = v[6];
    return RC_OK;
}

static int fail(struct blockstore *bs, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct blockstore *bs, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bs->err, sizeof(bs->err), fmt, ap);
    va_end(ap);
    return rc;
}

void blockstore_path(const struct blockstore *bs, int n, int undo, char *out, size_t out_len)
{
    snprintf(out, out_len, "%s/%s%05d.dat", bs->dir, undo ? "rev" : "blk", n);
}

static void add_file(struct blockstore *bs, const struct blockfile_info *info)
{
    pthread_mutex_lock(&bs->read_mu);
    bs->files = xrealloc(bs->files, (size_t)(bs->nfiles + 1) * sizeof(*bs->files));
    pthread_mutex_unlock(&bs->read_mu);
    struct file_state *f = &bs->files[bs->nfiles++];
    memset(f, 0, sizeof(*f));
    if (info) {
        f->info = *info;
    }
    f->blk_fd = f->rev_fd = -1;
    f->blk_alloc = f->info.size;
    f->rev_alloc = f->info.undo_size;
}

int blockstore_open(struct blockstore **out, const char *dir, const uint8_t magic4[4],
                    const struct blockfile_info *infos, int nfiles, char *err, size_t err_len)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "cannot create %s: %s", dir, strerror(errno));
        return RC_IO;
    }
    struct blockstore *bs = xcalloc(1, sizeof(*bs));
    snprintf(bs->dir, sizeof(bs->dir), "%s", dir);
    memcpy(bs->magic, magic4, 4);
    bs->max_file_size = BLOCKSTORE_MAX_FILE_SIZE;
    bs->blk_chunk = BLOCKSTORE_BLK_CHUNK;
    bs->rev_chunk = BLOCKSTORE_REV_CHUNK;
    pthread_mutex_init(&bs->read_mu, NULL);
    static const uint8_t zero_key[OBFUSCATION_KEY_SIZE];
    obfuscation_init(&bs->obf, zero_key);
    buf_init(&bs->scratch);
    for (int i = 0; i < nfiles; i++) {
        add_file(bs, &infos[i]);
    }
    if (bs->nfiles == 0) {
        add_file(bs, NULL);
    }
    *out = bs;
    return RC_OK;
}

/* The writer's open handle of file n (opened, and created, on first use). */
static int fd_of(struct blockstore *bs, int n, int undo, int *fd_out)
{
    struct file_state *f = &bs->files[n];
    int *fd = undo ? &f->rev_fd : &f->blk_fd;
    if (*fd < 0) {
        char path[4200];
        blockstore_path(bs, n, undo, path, sizeof(path));
        *fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (*fd >= 0) {
            bs->dir_unsynced = 1; /* its name is durable once the directory is synced */
        } else if (errno == EEXIST) {
            *fd = open(path, O_RDWR | O_CLOEXEC);
        }
        if (*fd < 0) {
            return fail(bs, RC_IO, "cannot open %s: %s", path, strerror(errno));
        }
    }
    *fd_out = *fd;
    return RC_OK;
}

/* Writes all of data at off, obfuscated with the store's key, honouring the fault hook. */
static int write_at(struct blockstore *bs, int fd, const void *data, size_t len, uint64_t off,
                    const char *what)
{
    size_t done = 0;
    const void *p = data;
    if (bs->obf.on) {
        buf_reset(&bs->scratch);
        buf_reserve(&bs->scratch, len);
        obfuscation_copy(&bs->obf, bs->scratch.data, data, len, off);
        p = bs->scratch.data;
    }
    if (bs->fault_n > 0 && --bs->fault_n == 0) {
        if (bs->fault_err) {
            bs->out_of_space |= bs->fault_err == ENOSPC;
            return fail(bs, RC_IO, "writing %s: %s", what, strerror(bs->fault_err));
        }
        if (pwrite(fd, p, len / 2, (off_t)off) < 0) {
            return fail(bs, RC_IO, "writing %s: %s", what, strerror(errno));
        }
        return fail(bs, RC_IO, "writing %s: short write (%zu of %zu bytes)", what, len / 2, len);
    }
    while (done < len) {
        ssize_t w = pwrite(fd, (const uint8_t *)p + done, len - done, (off_t)(off + done));
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            bs->out_of_space |= errno == ENOSPC;
            return fail(bs, RC_IO, "writing %s: %s", what, strerror(errno));
        }
        if (w == 0) {
            return fail(bs, RC_IO, "writing %s: no progress", what);
        }
        done += (size_t)w;
    }
    return RC_OK;
}

/* Makes sure [0, need) is allocated on disk, growing in chunks (ENOSPC shows up here, not in
 * the middle of a later write). As Core's FlatFileSeq::Allocate, a chunk is begun only with
 * its size and Core's 50 MiB margin free (fs_disk_space_ok): the node stops with "Disk
 * space is too low!" before the disk is full, so that the stores can still write. */
static int preallocate(struct blockstore *bs, int fd, uint32_t *alloc, uint64_t need,
                       uint32_t chunk, const char *what)
{
    if (need <= *alloc) {
        return RC_OK;
    }
    uint64_t target = (need + chunk - 1) / chunk * chunk;
    /* As Core's: looked at only when the position crosses into a new chunk (after a
     * restart *alloc is the data's end, and the chunk it is in is on disk already). */
    uint64_t old_end = ((uint64_t)*alloc + chunk - 1) / chunk * chunk;
    if (target > old_end && !fs_disk_space_ok(bs->dir, target - *alloc)) {
        bs->out_of_space = 1;
        return fail(bs, RC_IO, "allocating space for %s: Disk space is too low!", what);
    }
    bs->check_for_pruning = 1; /* Core's m_check_for_pruning: usage grows by a chunk */
    int e = posix_fallocate(fd, (off_t)*alloc, (off_t)(target - *alloc));
    if (e != 0 && e != EOPNOTSUPP && e != EINVAL) {
        bs->out_of_space |= e == ENOSPC;
        return fail(bs, RC_IO, "allocating space for %s: %s", what, strerror(e));
    }
    *alloc = (uint32_t)target;
    return RC_OK;
}

static void note_info(struct blockfile_info *i, uint32_t height, uint64_t time)
{
    if (i->blocks == 0 || height < i->height_first) {
        i->height_first = height;
    }
    if (i->blocks == 0 || time < i->time_first) {
        i->time_first = time;
    }
    if (height > i->height_last) {
        i->height_last = height;
    }
    if (time > i->time_last) {
        i->time_last = time;
    }
    i->blocks++;
}

/* Core's debug line when the blocks move on to a new file (CBlockFileInfo::ToString). */
static void log_leaving(const struct blockstore *bs, int n, uint32_t height)
{
    if (!log_enabled(LOG_CAT_BLOCKSTORAGE, LOG_LVL_DEBUG)) {
        return;
    }
    const struct blockfile_info *i = &bs->files[n].info;
    char t0[TIME_ISO_LEN], t1[TIME_ISO_LEN];
    time_format_iso(t0, (int64_t)i->time_first);
    time_format_iso(t1, (int64_t)i->time_last);
    t0[10] = t1[10] = 0; /* the date: Core's FormatISO8601Date */
    LOG(LOG_CAT_BLOCKSTORAGE, LOG_LVL_DEBUG,
        "Leaving block file %d: CBlockFileInfo(blocks=%u, size=%u, heights=%u...%u, "
        "time=%s...%s) (onto %d) (height %u)",
        n, i->blocks, i->size, i->height_first, i->height_last, t0, t1, n + 1, height);
}

int blockstore_append_block(struct blockstore *bs, const uint8_t *data, size_t len,
                            uint32_t height, uint64_t time, int *file, uint32_t *pos)
{
    struct file_state *f = &bs->files[bs->nfiles - 1];
    int fd, rc;
    if (len > BLOCKSTORE_MAX_FILE_SIZE - 8) {
        return fail(bs, RC_TOO_LARGE, "block of %zu bytes does not fit a block file", len);
    }
    /* Core's rule (FindNextBlockPos): a file is full when the record would reach its size;
     * a record larger than that goes into a file of its own. */
    if (f->info.size > 0 && (uint64_t)f->info.size + 8 + len >= bs->max_file_size) {
        /* Finish this file: give back the preallocated tail, make it durable. */
        if ((rc = fd_of(bs, bs->nfiles - 1, 0, &fd))) {
            return rc;
        }
        if (ftruncate(fd, f->info.size) != 0 || fsync(fd) != 0) {
            return fail(bs, RC_IO, "finishing blk%05d.dat: %s", bs->nfiles - 1, strerror(errno));
        }
        f->blk_alloc = f->info.size;
        f->blk_unsynced = 0;
        pthread_mutex_lock(&bs->read_mu); /* a reader may be using the handle */
        close(fd);
        f->blk_fd = -1;
        pthread_mutex_unlock(&bs->read_mu);
        log_leaving(bs, bs->nfiles - 1, height);
        add_file(bs, NULL);
        f = &bs->files[bs->nfiles - 1];
    }
    int n = bs->nfiles - 1;
    if ((rc = fd_of(bs, n, 0, &fd))) {
        return rc;
    }
    uint64_t off = f->info.size;
    if ((rc = preallocate(bs, fd, &f->blk_alloc, off + 8 + len, bs->blk_chunk, "a block"))) {
        return rc;
    }
    uint8_t frame[8];
    memcpy(frame, bs->magic, 4);
    wr_u32le(frame + 4, (uint32_t)len);
    if ((rc = write_at(bs, fd, frame, 8, off, "a block frame")) ||
        (rc = write_at(bs, fd, data, len, off + 8, "a block"))) {
        return rc;
    }
    note_info(&f->info, height, time);
    f->info.size = (uint32_t)(off + 8 + len);
    f->blk_unsynced = 1;
    f->info_dirty = 1;
    *file = n;
    *pos = (uint32_t)(off + 8);
    return RC_OK;
}

void blockstore_note_block(struct blockstore *bs, int file, uint32_t pos, size_t len,
                           uint32_t height, uint64_t time)
{
    while (bs->nfiles <= file) {
        add_file(bs, NULL);
    }
    struct file_state *f = &bs->files[file];
    note_info(&f->info, height, time);
    if ((uint64_t)pos + len > f->info.size) {
        f->info.size = (uint32_t)(pos + len);
        if (f->blk_alloc < f->info.size) {
            f->blk_alloc = f->info.size;
        }
    }
    f->info_dirty = 1;
}

static int read_exact(struct blockstore *bs, int fd, void *p, size_t len, uint64_t off,
                      const char *what)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (uint8_t *)p + done, len - done, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return fail(bs, RC_IO, "reading %s: %s", what, strerror(errno));
        }
        if (r == 0) {
            return fail(bs, RC_CORRUPT, "reading %s: file ends at %llu", what,
                        (unsigned long long)(off + done));
        }
        done += (size_t)r;
    }
    return RC_OK;
}

/* Reads the framed record whose payload starts at pos; extra bytes follow the payload. */
/* Reads the framed record whose payload starts at pos; extra bytes follow the payload. The
 * file is opened for this read alone, as Core's reads open it: a file deleted or moved away
 * under a running node (pruned, or by hand) fails the read instead of being read through a
 * handle kept open, and only the writer keeps handles. */
static int read_record(struct blockstore *bs, int file, uint32_t pos, int undo, size_t extra,
                       struct buf *out)
{
    uint8_t frame[8];
    int rc;
    const char *what = undo ? "an undo record" : "a block";
    if (file < 0 || file >= bs->nfiles || pos < 8) {
        return fail(bs, RC_CORRUPT, "%s position %d:%u is out of range", what, file, pos);
    }
    char path[4200];
    blockstore_path(bs, file, undo, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return fail(bs, RC_IO, "cannot open %s: %s", path, strerror(errno));
    }
    if ((rc = read_exact(bs, fd, frame, 8, pos - 8, what))) {
        close(fd);
        return rc;
    }
    obfuscation_apply(&bs->obf, frame, 8, pos - 8);
    uint32_t len = rd_u32le(frame + 4);
    uint32_t limit = undo ? bs->files[file].info.undo_size : bs->files[file].info.size;
    if (memcmp(frame, bs->magic, 4) != 0 || (uint64_t)pos + len + extra > limit) {
        close(fd);
        return fail(bs, RC_CORRUPT, "no %s at %s%05d.dat offset %u", what, undo ? "rev" : "blk",
                    file, pos);
    }
    buf_reset(out);
    buf_reserve(out, len + extra);
    rc = read_exact(bs, fd, out->data, len + extra, pos, what);
    close(fd);
    if (rc) {
        return rc;
    }
    obfuscation_apply(&bs->obf, out->data, len + extra, pos);
    out->len = len + extra;
    return RC_OK;
}

int blockstore_read_block(struct blockstore *bs, int file, uint32_t pos, struct buf *out)
{
    pthread_mutex_lock(&bs->read_mu);
    int rc = read_record(bs, file, pos, 0, 0, out);
    pthread_mutex_unlock(&bs->read_mu);
    return rc;
}

static void undo_checksum(uint8_t out32[32], const uint8_t prev_hash32[32], const uint8_t *undo,
                          size_t len)
{
    struct hash_sha256_ctx c;
    uint8_t first[32];
    hash_sha256_init(&c);
    hash_sha256_write(&c, prev_hash32, 32);
    hash_sha256_write(&c, undo, len);
    hash_sha256_final(&c, first);
    hash_sha256(out32, first, 32);
}

int blockstore_append_undo(struct blockstore *bs, int file, const uint8_t prev_hash32[32],
                           const uint8_t *undo, size_t len, uint32_t *pos)
{
    int fd, rc;
    if (file < 0 || file >= bs->nfiles) {
        return fail(bs, RC_USAGE, "undo for unknown file %d", file);
    }
    struct file_state *f = &bs->files[file];
    if ((rc = fd_of(bs, file, 1, &fd))) {
        return rc;
    }
    uint64_t off = f->info.undo_size;
    if ((uint64_t)off + 8 + len + 32 > UINT32_MAX) {
        return fail(bs, RC_TOO_LARGE, "rev%05d.dat is full", file);
    }
    if ((rc = preallocate(bs, fd, &f->rev_alloc, off + 8 + len + 32, bs->rev_chunk,
                          "undo data"))) {
        return rc;
    }
    uint8_t frame[8], sum[32];
    memcpy(frame, bs->magic, 4);
    wr_u32le(frame + 4, (uint32_t)len);
    undo_checksum(sum, prev_hash32, undo, len);
    if ((rc = write_at(bs, fd, frame, 8, off, "an undo frame")) ||
        (rc = write_at(bs, fd, undo, len, off + 8, "undo data")) ||
        (rc = write_at(bs, fd, sum, 32, off + 8 + len, "an undo checksum"))) {
        return rc;
    }
    f->info.undo_size = (uint32_t)(off + 8 + len + 32);
    f->rev_unsynced = 1;
    f->info_dirty = 1;
    *pos = (uint32_t)(off + 8);
    return RC_OK;
}

int blockstore_read_undo(struct blockstore *bs, int file, uint32_t pos,
                         const uint8_t prev_hash32[32], struct buf *out)
{
    uint8_t sum[32];
    pthread_mutex_lock(&bs->read_mu);
    int rc = read_record(bs, file, pos, 1, 32, out);
    pthread_mutex_unlock(&bs->read_mu);
    if (rc) {
        return rc;
    }
    out->len -= 32;
    undo_checksum(sum, prev_hash32, out->data, out->len);
    if (memcmp(sum, out->data + out->len, 32) != 0) {
        return fail(bs, RC_CORRUPT, "undo record at rev%05d.dat offset %u fails its checksum",
                    file, pos);
    }
    return RC_OK;
}

/* Only the current file keeps its handles open; an older file's rev file gives back its
 * preallocated tail (undo data arriving later grows it again). Under the read lock: a
 * reader may be using a handle it opened. */
static int finish_old_file(struct blockstore *bs, int i)
{
    struct file_state *f = &bs->files[i];
    int rc = RC_OK;
    pthread_mutex_lock(&bs->read_mu);
    if (f->blk_fd >= 0) {
        close(f->blk_fd);
        f->blk_fd = -1;
    }
    if (f->rev_fd >= 0 && f->rev_alloc > f->info.undo_size) {
        if (ftruncate(f->rev_fd, f->info.undo_size) != 0) {
            rc = fail(bs, RC_IO, "finishing rev%05d.dat: %s", i, strerror(errno));
        } else {
            f->rev_alloc = f->info.undo_size;
        }
    }
    if (f->rev_fd >= 0) {
        close(f->rev_fd);
        f->rev_fd = -1;
    }
    pthread_mutex_unlock(&bs->read_mu);
    return rc;
}

int blockstore_sync(struct blockstore *bs)
{
    int rc;
    for (int i = 0; i < bs->nfiles; i++) {
        struct file_state *f = &bs->files[i];
        if (f->blk_unsynced && f->blk_fd >= 0) {
            if (fsync(f->blk_fd) != 0) {
                return fail(bs, RC_IO, "fsync blk%05d.dat: %s", i, strerror(errno));
            }
            f->blk_unsynced = 0;
        }
        if (f->rev_unsynced && f->rev_fd >= 0) {
            if (fsync(f->rev_fd) != 0) {
                return fail(bs, RC_IO, "fsync rev%05d.dat: %s", i, strerror(errno));
            }
            f->rev_unsynced = 0;
        }
        if (i < bs->nfiles - 1 && (rc = finish_old_file(bs, i))) {
            return rc;
        }
    }
    if (bs->dir_unsynced) {
        if (fs_sync_dir(bs->dir, bs->err, sizeof(bs->err)) != RC_OK) {
            return RC_IO;
        }
        bs->dir_unsynced = 0;
    }
    return RC_OK;
}

void blockstore_close(struct blockstore *bs)
{
    if (!bs) {
        return;
    }
    int fd;
    if (bs->files[bs->nfiles - 1].info.size > 0) {
        /* The current file's rev file exists from its first block on, even empty (Core's
         * shutdown flush creates it). */
        (void)fd_of(bs, bs->nfiles - 1, 1, &fd);
    }
    blockstore_sync(bs);
    for (int i = 0; i < bs->nfiles; i++) {
        if (bs->files[i].blk_fd >= 0) {
            close(bs->files[i].blk_fd);
        }
        if (bs->files[i].rev_fd >= 0) {
            close(bs->files[i].rev_fd);
        }
    }
    free(bs->files);
    free(bs->pruned);
    buf_clear(&bs->scratch);
    pthread_mutex_destroy(&bs->read_mu);
    free(bs);
}

int blockstore_file_count(const struct blockstore *bs)
{
    return bs->nfiles;
}

const struct blockfile_info *blockstore_file_info(const struct blockstore *bs, int n)
{
    return n >= 0 && n < bs->nfiles ? &bs->files[n].info : NULL;
}

int blockstore_take_dirty_files(struct blockstore *bs, int *out, int max)
{
    int k = 0;
    for (int i = 0; i < bs->nfiles && k < max; i++) {
        if (bs->files[i].info_dirty) {
            out[k++] = i;
            bs->files[i].info_dirty = 0;
        }
    }
    return k;
}

int blockstore_out_of_space(const struct blockstore *bs)
{
    return bs->out_of_space;
}

const char *blockstore_error(const struct blockstore *bs)
{
    return bs->err;
}

void blockstore_inject_fault(struct blockstore *bs, int n, int err)
{
    bs->fault_n = n;
    bs->fault_err = err;
}

void blockstore_set_max_file_size(struct blockstore *bs, uint32_t max_bytes)
{
    bs->max_file_size = max_bytes;
}

void blockstore_set_fast_prune(struct blockstore *bs)
{
    bs->max_file_size = BLOCKSTORE_FAST_PRUNE_FILE_SIZE;
    bs->blk_chunk = BLOCKSTORE_FAST_PRUNE_CHUNK;
}

/* "blkNNNNN.dat" / "revNNNNN.dat": the number, or -1. */
static int file_number(const char *name, const char *prefix)
{
    if (strlen(name) != 12 || strncmp(name, prefix, 3) != 0 || strcmp(name + 8, ".dat") != 0) {
        return -1;
    }
    int n = 0;
    for (int i = 3; i < 8; i++) {
        if (name[i] < '0' || name[i] > '9') {
            return -1;
        }
        n = n * 10 + (name[i] - '0');
    }
    return n;
}

int blockstore_cleanup_for_reindex(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        return errno == ENOENT ? RC_OK : RC_IO;
    }
    int *blk = NULL, nblk = 0, max = -1;
    struct dirent *de;
    char path[4400];
    while ((de = readdir(d)) != NULL) {
        int n;
        if ((n = file_number(de->d_name, "rev")) >= 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            (void)unlink(path);
        } else if ((n = file_number(de->d_name, "blk")) >= 0) {
            blk = xrealloc(blk, (size_t)(nblk + 1) * sizeof(*blk));
            blk[nblk++] = n;
            max = n > max ? n : max;
        }
    }
    closedir(d);
    /* The files from 0 up to the first gap are read again; the others cannot be. */
    uint8_t *have = xcalloc((size_t)max + 2, 1);
    for (int i = 0; i < nblk; i++) {
        have[blk[i]] = 1;
    }
    int contiguous = 0;
    while (contiguous <= max && have[contiguous]) {
        contiguous++;
    }
    for (int i = 0; i < nblk; i++) {
        if (blk[i] >= contiguous) {
            snprintf(path, sizeof(path), "%s/blk%05d.dat", dir, blk[i]);
            (void)unlink(path);
        }
    }
    free(have);
    free(blk);
    return RC_OK;
}

uint64_t blockstore_usage(const struct blockstore *bs)
{
    uint64_t n = 0;
    for (int i = 0; i < bs->nfiles; i++) {
        n += (uint64_t)bs->files[i].info.size + bs->files[i].info.undo_size;
    }
    return n;
}

uint64_t blockstore_file_allocated(const struct blockstore *bs, int n)
{
    if (n < 0 || n >= bs->nfiles) {
        return 0;
    }
    const struct file_state *f = &bs->files[n];
    return (uint64_t)(f->blk_alloc > f->info.size ? f->blk_alloc : f->info.size) +
           (f->rev_alloc > f->info.undo_size ? f->rev_alloc : f->info.undo_size);
}

int blockstore_take_check_for_pruning(struct blockstore *bs)
{
    int c = bs->check_for_pruning;
    bs->check_for_pruning = 0;
    return c;
}

void blockstore_request_check_for_pruning(struct blockstore *bs)
{
    bs->check_for_pruning = 1;
}

void blockstore_prune_file(struct blockstore *bs, int n)
{
    if (n < 0 || n >= bs->nfiles - 1) {
        return; /* the file being written is never pruned */
    }
    struct file_state *f = &bs->files[n];
    pthread_mutex_lock(&bs->read_mu);
    if (f->blk_fd >= 0) {
        close(f->blk_fd);
    }
    if (f->rev_fd >= 0) {
        close(f->rev_fd);
    }
    memset(&f->info, 0, sizeof(f->info));
    f->blk_fd = f->rev_fd = -1;
    f->blk_alloc = f->rev_alloc = 0;
    f->blk_unsynced = f->rev_unsynced = 0;
    f->info_dirty = 1;
    pthread_mutex_unlock(&bs->read_mu);
    bs->pruned = xrealloc(bs->pruned, (size_t)(bs->npruned + 1) * sizeof(*bs->pruned));
    bs->pruned[bs->npruned++] = n;
}

/* Removes blk and rev file n if they are there. Returns 1 if either was. */
static int unlink_pair(struct blockstore *bs, int n)
{
    char blk[4200], rev[4200];
    blockstore_path(bs, n, 0, blk, sizeof(blk));
    blockstore_path(bs, n, 1, rev, sizeof(rev));
    int a = unlink(blk) == 0, b = unlink(rev) == 0;
    return a || b;
}

int blockstore_unlink_pruned(struct blockstore *bs, blockstore_unlink_fn log, void *ctx)
{
    int k = 0;
    for (int i = 0; i < bs->npruned; i++) {
        if (unlink_pair(bs, bs->pruned[i])) {
            k++;
            if (log) {
                log(ctx, bs->pruned[i]);
            }
        }
    }
    bs->npruned = 0;
    return k;
}

int blockstore_unlink_already_pruned(struct blockstore *bs, blockstore_unlink_fn log, void *ctx)
{
    int k = 0;
    for (int i = 0; i < bs->nfiles - 1; i++) {
        const struct blockfile_info *f = &bs->files[i].info;
        if (f->size == 0 && unlink_pair(bs, i)) {
            k++;
            if (log) {
                log(ctx, i);
            }
        }
    }
    return k;
}

int blockstore_read_xor_key(const char *dir, uint8_t key[OBFUSCATION_KEY_SIZE], char *err,
                            size_t err_len)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/xor.dat", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return RC_NOT_FOUND;
        }
        snprintf(err, err_len, "cannot read %s: %s", path, strerror(errno));
        return RC_IO;
    }
    size_t got = 0;
    while (got < OBFUSCATION_KEY_SIZE) {
        ssize_t n = read(fd, key + got, OBFUSCATION_KEY_SIZE - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            int saved = errno;
            close(fd);
            if (n < 0) {
                snprintf(err, err_len, "cannot read %s: %s", path, strerror(saved));
                return RC_IO;
            }
            snprintf(err, err_len, "%s holds %zu bytes; an XOR key is %d", path, got,
                     OBFUSCATION_KEY_SIZE);
            return RC_CORRUPT;
        }
        got += (size_t)n;
    }
    close(fd);
    return RC_OK;
}

/* Core's first run of a blocks directory: it holds nothing but hidden files (.lock). */
static int blocks_dir_is_new(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        return 1;
    }
    struct dirent *de;
    int fresh = 1;
    while (fresh && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
            continue;
        }
        char path[4400];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        fresh = de->d_name[0] == '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    }
    closedir(d);
    return fresh;
}

/* Creates dir/xor.dat (it must not exist) holding key, durably. */
static int write_xor_key(const char *path, const uint8_t key[OBFUSCATION_KEY_SIZE], char *err,
                         size_t err_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create XOR key file %s: %s", path, strerror(errno));
        return RC_IO;
    }
    ssize_t w = write(fd, key, OBFUSCATION_KEY_SIZE);
    int e = w == OBFUSCATION_KEY_SIZE ? 0 : (w < 0 ? errno : EIO);
    if (!e && fsync(fd) != 0) {
        e = errno;
    }
    if (close(fd) != 0 && !e) {
        e = errno;
    }
    if (e) {
        snprintf(err, err_len, "Error closing XOR key file %s: %s", path, strerror(e));
        return RC_IO;
    }
    /* Its name too: the blocks written with the key must never outlive it. */
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = 0;
    return fs_sync_dir(dir, err, err_len);
}

int blockstore_init_xor_key(const char *dir, int use_xor, uint8_t key[OBFUSCATION_KEY_SIZE],
                            char *err, size_t err_len)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/xor.dat", dir);
    memset(key, 0, OBFUSCATION_KEY_SIZE);
    if (use_xor && blocks_dir_is_new(dir)) {
        random_bytes(key, OBFUSCATION_KEY_SIZE);
    }
    int rc = blockstore_read_xor_key(dir, key, err, err_len);
    if (rc == RC_NOT_FOUND) {
        rc = write_xor_key(path, key, err, err_len);
    }
    if (rc) {
        return rc;
    }
    char hex[2 * OBFUSCATION_KEY_SIZE + 1];
    hex_encode(hex, key, OBFUSCATION_KEY_SIZE);
    static const uint8_t zero[OBFUSCATION_KEY_SIZE];
    if (!use_xor && memcmp(key, zero, OBFUSCATION_KEY_SIZE) != 0) {
        snprintf(err, err_len,
                 "The blocksdir XOR-key can not be disabled when a random key was already "
                 "stored! Stored key: '%s', stored path: '%s'.",
                 hex, path);
        return RC_INVALID;
    }
    LOG_INFO("Using obfuscation key for blocksdir *.dat files (%s): '%s'", dir, hex);
    return RC_OK;
}

void blockstore_set_xor_key(struct blockstore *bs, const uint8_t key[OBFUSCATION_KEY_SIZE])
{
    obfuscation_init(&bs->obf, key);
}

const struct obfuscation *blockstore_obfuscation(const struct blockstore *bs)
{
    return &bs->obf;
}
