#include "blockstore/blockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Pages of the mapping behind the reading position are handed back to the kernel in steps,
 * keeping the last RELEASE_KEEP bytes: a file of any size adds at most RELEASE_STEP +
 * RELEASE_KEEP to the resident set while it is read (a block held for its parent is read
 * again from the file when it is wanted). */
#define RELEASE_KEEP (8u << 20)
#define RELEASE_STEP (16u << 20)

struct blockfile {
    const uint8_t *map; /* NULL for an empty file */
    size_t size;
    size_t pos;
    size_t released; /* [0, released) was given back (page-aligned) */
    uint8_t magic[4];
    struct blockfile_stats stats;
};

static int sys_error(char *err, size_t err_len, const char *what, const char *path)
{
    if (err && err_len) {
        snprintf(err, err_len, "%s %s: %s", what, path, strerror(errno));
    }
    return RC_IO;
}

static int map_file(const char *path, const uint8_t **map, size_t *size, char *err,
                    size_t err_len)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return sys_error(err, err_len, "cannot open", path);
    }
    if (fstat(fd, &st) != 0) {
        int rc = sys_error(err, err_len, "cannot stat", path);
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return sys_error(err, err_len, "not a regular file:", path);
    }
    *size = (size_t)st.st_size;
    *map = NULL;
    if (*size > 0) {
        void *m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int rc = sys_error(err, err_len, "cannot map", path);
            close(fd);
            return rc;
        }
        madvise(m, *size, MADV_SEQUENTIAL);
        *map = m;
    }
    close(fd);
    return RC_OK;
}

int blockfile_open(struct blockfile **out, const char *path, const uint8_t magic4[4], char *err,
                   size_t err_len)
{
    const uint8_t *map;
    size_t size;
    int rc = map_file(path, &map, &size, err, err_len);
    if (rc) {
        return rc;
    }
    struct blockfile *bf = xcalloc(1, sizeof(*bf));
    bf->map = map;
    bf->size = size;
    memcpy(bf->magic, magic4, 4);
    *out = bf;
    return RC_OK;
}

/* Counts [from, to) as skipped, and its non-zero bytes as garbage. */
static void skip(struct blockfile *bf, size_t from, size_t to)
{
    bf->stats.skipped_bytes += to - from;
    for (size_t i = from; i < to; i++) {
        if (bf->map[i] != 0) {
            if (bf->stats.garbage_bytes++ == 0) {
                bf->stats.first_garbage_at = i;
            }
        }
    }
}

int blockfile_next(struct blockfile *bf, struct blockfile_record *rec)
{
    while (bf->pos < bf->size) {
        const uint8_t *hit = memchr(bf->map + bf->pos, bf->magic[0], bf->size - bf->pos);
        if (!hit) {
            skip(bf, bf->pos, bf->size);
            bf->pos = bf->size;
            break;
        }
        size_t at = (size_t)(hit - bf->map);
        skip(bf, bf->pos, at);
        bf->pos = at;
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
        if (at >= bf->released + RELEASE_STEP + RELEASE_KEEP) {
            size_t page = (size_t)sysconf(_SC_PAGESIZE);
            size_t upto = (at - RELEASE_KEEP) / page * page;
            madvise((void *)(bf->map + bf->released), upto - bf->released, MADV_DONTNEED);
            bf->released = upto;
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

int blockfile_sniff_magic(const char *path, uint8_t magic4[4], char *err, size_t err_len)
{
    const uint8_t *map;
    size_t size, i = 0;
    int rc = map_file(path, &map, &size, err, err_len);
    if (rc) {
        return rc;
    }
    while (i < size && map[i] == 0) {
        i++;
    }
    rc = RC_NOT_FOUND;
    if (size - i >= 4) {
        memcpy(magic4, map + i, 4);
        rc = RC_OK;
    } else if (err && err_len) {
        snprintf(err, err_len, "%s holds no block records", path);
    }
    if (map) {
        munmap((void *)map, size);
    }
    return rc;
}

void blockfile_close(struct blockfile *bf)
{
    if (!bf) {
        return;
    }
    if (bf->map) {
        munmap((void *)bf->map, bf->size);
    }
    free(bf);
}
