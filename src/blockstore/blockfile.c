#include "blockstore/blockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/obfuscation.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Pages of the mapping behind the reading position are handed back to the kernel in steps,
 * keeping the last RELEASE_KEEP bytes: a file of any size adds at most RELEASE_STEP +
 * RELEASE_KEEP to the resident set while it is read (a block held for its parent is read
 * again from the file when it is wanted). */
#define RELEASE_KEEP (8u << 20)
#define RELEASE_STEP (16u << 20)

/* A file is never mapped (a file that shrinks, or a disk that fails a read, would kill the
 * process with SIGBUS on touching the page): its chunks are read with pread into an
 * anonymous mapping of the file's size as they are wanted (and turned back there under an
 * XOR key), a chunk at a time; given back pages are read again when wanted. A read that
 * fails or comes short ends the file there, in the stats (read_error). */
#define XOR_CHUNK (1u << 20)

struct blockfile {
    const uint8_t *map; /* anonymous, the file's size; NULL for an empty file */
    size_t size;
    size_t pos;
    size_t released; /* [0, released) was given back (chunk-aligned) */
    size_t keep_from; /* bytes from here on are in use: never given back */
    uint8_t magic[4];
    struct blockfile_stats stats;
    int fd;               /* -1 before it is open */
    struct obfuscation obf; /* .on == 0 (a key of zeros) for a plain file */
    uint8_t *loaded;      /* a bit per XOR_CHUNK: read and turned back */
    int failed;           /* a read failed: the file ends there */
};

static int sys_error(char *err, size_t err_len, const char *what, const char *path)
{
    if (err && err_len) {
        snprintf(err, err_len, "%s %s: %s", what, path, strerror(errno));
    }
    return RC_IO;
}

/* The file at path: its descriptor and an anonymous mapping of its size, filled chunk by
 * chunk with pread. */
static int open_file(struct blockfile *bf, const char *path, char *err, size_t err_len)
{
    struct stat st;
    bf->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (bf->fd < 0) {
        return sys_error(err, err_len, "cannot open", path);
    }
    if (fstat(bf->fd, &st) != 0) {
        return sys_error(err, err_len, "cannot stat", path);
    }
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return sys_error(err, err_len, "not a regular file:", path);
    }
    bf->size = (size_t)st.st_size;
    if (bf->size > 0) {
        void *m = mmap(NULL, bf->size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            return sys_error(err, err_len, "cannot map", path);
        }
        bf->map = m;
        bf->loaded = xcalloc(bf->size / XOR_CHUNK / 8 + 1, 1);
    }
    return RC_OK;
}

int blockfile_open_obfuscated(struct blockfile **out, const char *path, const uint8_t magic4[4],
                              const struct obfuscation *obf, char *err, size_t err_len)
{
    struct blockfile *bf = xcalloc(1, sizeof(*bf));
    bf->fd = -1;
    bf->keep_from = SIZE_MAX;
    memcpy(bf->magic, magic4, 4);
    int rc;
    if (obf && obf->on) {
        bf->obf = *obf;
    }
    rc = open_file(bf, path, err, err_len);
    if (rc) {
        blockfile_close(bf);
        return rc;
    }
    *out = bf;
    return RC_OK;
}

int blockfile_open(struct blockfile **out, const char *path, const uint8_t magic4[4], char *err,
                   size_t err_len)
{
    return blockfile_open_obfuscated(out, path, magic4, NULL, err, err_len);
}

/* Makes [from, to) readable in bf->map: its chunks not read yet are read (and turned back
 * when obfuscated). Returns 0, or -1 after a failed read (bf->failed, stats). */
static int ensure(struct blockfile *bf, size_t from, size_t to)
{
    if (to <= from) {
        return bf->failed ? -1 : 0;
    }
    uint8_t *own = (uint8_t *)bf->map;
    for (size_t c = from / XOR_CHUNK; c <= (to - 1) / XOR_CHUNK; c++) {
        if (bf->loaded[c / 8] & (1u << (c % 8))) {
            continue;
        }
        size_t start = c * XOR_CHUNK, n = bf->size - start < XOR_CHUNK ? bf->size - start
                                                                         : XOR_CHUNK;
        size_t done = 0;
        while (done < n) {
            ssize_t r = pread(bf->fd, own + start + done, n - done, (off_t)(start + done));
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                bf->failed = 1;
                bf->stats.read_error = r < 0 ? errno : EIO; /* EIO: the file shrank */
                bf->stats.read_error_at = start + done;
                return -1;
            }
            done += (size_t)r;
        }
        if (bf->obf.on) {
            obfuscation_apply(&bf->obf, own + start, n, start);
        }
        bf->loaded[c / 8] |= (uint8_t)(1u << (c % 8));
    }
    return 0;
}

/* Gives [released, upto) back to the kernel: upto aligned down to the unit, or the whole
 * rest of the file when it reaches the end. */
static void give_back(struct blockfile *bf, size_t upto)
{
    size_t unit = XOR_CHUNK;
    upto = upto < bf->size ? upto / unit * unit : bf->size;
    if (!bf->map || upto <= bf->released) {
        return;
    }
    madvise((void *)(bf->map + bf->released), upto - bf->released, MADV_DONTNEED);
    for (size_t c = bf->released / XOR_CHUNK; c < (upto + XOR_CHUNK - 1) / XOR_CHUNK; c++) {
        bf->loaded[c / 8] &= (uint8_t)~(1u << (c % 8));
    }
    bf->released = upto;
}

/* Counts [from, to) as skipped, and its bytes that were not zero on disk as garbage
 * (preallocation writes zeros, which an obfuscated file turns into the key). */
static void skip(struct blockfile *bf, size_t from, size_t to)
{
    bf->stats.skipped_bytes += to - from;
    const uint8_t *pad = bf->obf.key; /* zeros for a plain file */
    for (size_t i = from; i < to; i++) {
        if (bf->map[i] != pad[i % OBFUSCATION_KEY_SIZE]) {
            if (bf->stats.garbage_bytes++ == 0) {
                bf->stats.first_garbage_at = i;
            }
        }
    }
}

int blockfile_next(struct blockfile *bf, struct blockfile_record *rec)
{
    while (bf->pos < bf->size && !bf->failed) {
        /* The file is looked through a chunk at a time. */
        size_t limit = bf->size;
        if (bf->size - bf->pos > XOR_CHUNK - bf->pos % XOR_CHUNK) {
            limit = bf->pos + (XOR_CHUNK - bf->pos % XOR_CHUNK);
        }
        if (ensure(bf, bf->pos, limit)) {
            break;
        }
        const uint8_t *hit = memchr(bf->map + bf->pos, bf->magic[0], limit - bf->pos);
        if (!hit) {
            skip(bf, bf->pos, limit);
            bf->pos = limit;
            continue;
        }
        size_t at = (size_t)(hit - bf->map);
        skip(bf, bf->pos, at);
        bf->pos = at;
        if (ensure(bf, at, bf->size - at < 8 ? bf->size : at + 8)) {
            break;
        }
        if (bf->size - at < 8) {
            /* Not enough room for a frame: whatever is left is not a record. */
            if (bf->size - at >= 4 && memcmp(hit, bf->magic, 4) == 0) {
                bf->stats.truncated_tail = 1;
                bf->stats.truncated_at = at;
            } else {
                skip(bf, at, bf->size);
            }
            bf->pos = bf->size;
            break;
        }
        if (memcmp(hit, bf->magic, 4) != 0) {
            /* Core resumes one byte after the candidate. */
            skip(bf, at, at + 1);
            bf->pos = at + 1;
            continue;
        }
        uint32_t len = rd_u32le(hit + 4);
        if (len < BLOCKFILE_MIN_RECORD || len > BLOCKFILE_MAX_RECORD) {
            if (bf->stats.bad_frames++ == 0) {
                bf->stats.first_bad_frame_at = at;
            }
            skip(bf, at, at + 1);
            bf->pos = at + 1;
            continue;
        }
        if ((uint64_t)len > bf->size - at - 8) {
            bf->stats.truncated_tail = 1;
            bf->stats.truncated_at = at;
            bf->pos = bf->size;
            break;
        }
        if (ensure(bf, at + 8, at + 8 + len)) {
            break;
        }
        if (at >= bf->released + RELEASE_STEP + RELEASE_KEEP) {
            give_back(bf, at - RELEASE_KEEP < bf->keep_from ? at - RELEASE_KEEP : bf->keep_from);
        }
        rec->data = hit + 8;
        rec->len = len;
        rec->offset = at + 8;
        bf->pos = at + 8 + len;
        bf->stats.records++;
        return 1;
    }
    return 0;
}

int blockfile_read_at(struct blockfile *bf, uint64_t offset, size_t len,
                      struct blockfile_record *rec)
{
    if (offset > bf->size || len > bf->size - offset) {
        return RC_INVALID;
    }
    if (ensure(bf, (size_t)offset, (size_t)offset + len)) {
        return RC_IO;
    }
    rec->data = bf->map + offset;
    rec->len = len;
    rec->offset = offset;
    return RC_OK;
}

uint64_t blockfile_size(const struct blockfile *bf)
{
    return bf->size;
}

void blockfile_get_stats(const struct blockfile *bf, struct blockfile_stats *stats)
{
    *stats = bf->stats;
}

void blockfile_rewind(struct blockfile *bf)
{
    bf->pos = 0;
    bf->released = 0; /* what was given back faults in again from the file */
}

int blockfile_sniff_magic(const char *path, const struct obfuscation *obf, uint8_t magic4[4],
                          char *err, size_t err_len)
{
    static const uint8_t none[4];
    struct blockfile *bf;
    int rc = blockfile_open_obfuscated(&bf, path, none, obf, err, err_len);
    if (rc) {
        return rc;
    }
    size_t i = 0;
    while (i < bf->size && ensure(bf, i, bf->size - i < 4 ? bf->size : i + 4) == 0 &&
           bf->map[i] == 0) {
        i++;
    }
    rc = RC_NOT_FOUND;
    if (bf->failed) {
        rc = RC_IO;
        if (err && err_len) {
            snprintf(err, err_len, "cannot read %s: %s", path, strerror(bf->stats.read_error));
        }
    } else if (bf->size - i >= 4) {
        memcpy(magic4, bf->map + i, 4);
        rc = RC_OK;
    } else if (err && err_len) {
        snprintf(err, err_len, "%s holds no block records", path);
    }
    blockfile_close(bf);
    return rc;
}

void blockfile_keep_from(struct blockfile *bf, uint64_t offset)
{
    bf->keep_from = offset > SIZE_MAX ? SIZE_MAX : (size_t)offset;
}

void blockfile_release(struct blockfile *bf)
{
    size_t from = bf->released;
    bf->released = 0;
    give_back(bf, bf->keep_from);
    if (bf->released < from) {
        bf->released = from;
    }
}

void blockfile_close(struct blockfile *bf)
{
    if (!bf) {
        return;
    }
    if (bf->map) {
        munmap((void *)bf->map, bf->size);
    }
    if (bf->fd >= 0) {
        close(bf->fd);
    }
    free(bf->loaded);
    free(bf);
}
