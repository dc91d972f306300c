/* The block reader thread (readahead.h). Requests are a ring kept in the order asked; the
 * thread reads the first one still queued. An item being read is never moved or freed: the
 * owner waits for it before dropping it. */
#include "validation/readahead.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* A frame longer than this is not a block (a block is at most 4 MB serialized). */
#define MAX_RECORD ((uint32_t)32 << 20)

enum { RA_QUEUED, RA_READING, RA_DONE };
#define READAHEAD_TRASH 8

struct ra_item {
    uint8_t hash[32];
    int file;
    uint32_t pos;
    int state;
    int rc;
    struct block b;
};

struct readahead {
    char *dir;
    uint8_t magic[4];
    pthread_mutex_t mu; /* a leaf */
    pthread_cond_t work, done;
    pthread_t thread;
    int started, stop;
    struct ra_item q[READAHEAD_DEPTH];
    size_t head, n; /* the ring, in the order asked */
    uint64_t blocks, ns;
    struct block trash[READAHEAD_TRASH]; /* blocks to free on the reader thread */
    size_t ntrash;
    /* The reader thread's own. */
    int fd, fd_file;
    struct buf raw;
};

static struct ra_item *at(struct readahead *ra, size_t k)
{
    return &ra->q[(ra->head + k) % READAHEAD_DEPTH];
}

static int read_exact(int fd, uint8_t *p, size_t len, off_t off)
{
    while (len > 0) {
        ssize_t r = pread(fd, p, len, off);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return r < 0 ? RC_IO : RC_CORRUPT;
        }
        p += r;
        len -= (size_t)r;
        off += r;
    }
    return RC_OK;
}

/* Reads and parses one block (reader thread). */
static int read_one(struct readahead *ra, int file, uint32_t pos, const uint8_t hash32[32],
                    struct block *b)
{
    uint8_t frame[8];
    char err[128];
    int rc;
    if (ra->fd_file != file) {
        char path[4200];
        if (ra->fd >= 0) {
            close(ra->fd);
        }
        ra->fd_file = -1;
        snprintf(path, sizeof(path), "%s/blk%05d.dat", ra->dir, file);
        ra->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (ra->fd < 0) {
            return RC_IO;
        }
        ra->fd_file = file;
    }
    if (pos < 8 || (rc = read_exact(ra->fd, frame, 8, (off_t)pos - 8))) {
        return pos < 8 ? RC_CORRUPT : rc;
    }
    uint32_t len = rd_u32le(frame + 4);
    if (memcmp(frame, ra->magic, 4) != 0 || len > MAX_RECORD) {
        return RC_CORRUPT;
    }
    buf_reset(&ra->raw);
    buf_reserve(&ra->raw, len);
    if ((rc = read_exact(ra->fd, ra->raw.data, len, (off_t)pos))) {
        return rc;
    }
    ra->raw.len = len;
    if (block_parse(b, ra->raw.data, len, err, sizeof(err)) != RC_OK) {
        return RC_CORRUPT;
    }
    if (memcmp(b->hash, hash32, 32) != 0) {
        block_clear(b);
        return RC_CORRUPT;
    }
    return RC_OK;
}

static void *reader_main(void *arg)
{
    struct readahead *ra = arg;
    log_thread_rename("readahead");
    pthread_mutex_lock(&ra->mu);
    while (!ra->stop) {
        if (ra->ntrash > 0) {
            /* Freed by the thread that allocated them: glibc frees a chunk fastest in its
             * own arena, and the validation thread has better things to do. */
            struct block b = ra->trash[--ra->ntrash];
            pthread_mutex_unlock(&ra->mu);
            block_clear(&b);
            pthread_mutex_lock(&ra->mu);
            continue;
        }
        struct ra_item *it = NULL;
        for (size_t k = 0; k < ra->n; k++) {
            if (at(ra, k)->state == RA_QUEUED) {
                it = at(ra, k);
                break;
            }
        }
        if (!it) {
            pthread_cond_wait(&ra->work, &ra->mu);
            continue;
        }
        it->state = RA_READING;
        int file = it->file;
        uint32_t pos = it->pos;
        uint8_t hash[32];
        memcpy(hash, it->hash, 32);
        pthread_mutex_unlock(&ra->mu);

        struct block b;
        uint64_t t0 = time_mono_ns();
        block_init(&b);
        int rc = read_one(ra, file, pos, hash, &b);
        uint64_t dt = time_mono_ns() - t0;

        pthread_mutex_lock(&ra->mu);
        it->rc = rc;
        it->b = b;
        it->state = RA_DONE;
        ra->blocks++;
        ra->ns += dt;
        pthread_cond_broadcast(&ra->done);
    }
    pthread_mutex_unlock(&ra->mu);
    if (ra->fd >= 0) {
        close(ra->fd);
        ra->fd = -1;
    }
    return NULL;
}

struct readahead *readahead_new(const char *dir, const uint8_t magic4[4])
{
    struct readahead *ra = xcalloc(1, sizeof(*ra));
    ra->dir = xstrdup(dir);
    memcpy(ra->magic, magic4, 4);
    pthread_mutex_init(&ra->mu, NULL);
    pthread_cond_init(&ra->work, NULL);
    pthread_cond_init(&ra->done, NULL);
    ra->fd = -1;
    ra->fd_file = -1;
    buf_init(&ra->raw);
    for (size_t i = 0; i < READAHEAD_DEPTH; i++) {
        block_init(&ra->q[i].b);
    }
    return ra;
}

/* Pops the first item (not being read; mu held). */
static void pop_head(struct readahead *ra)
{
    struct ra_item *it = at(ra, 0);
    block_clear(&it->b);
    block_init(&it->b);
    it->state = RA_QUEUED;
    ra->head = (ra->head + 1) % READAHEAD_DEPTH;
    ra->n--;
}

/* Waits until no item is being read (mu held). */
static void wait_idle(struct readahead *ra)
{
    for (;;) {
        int reading = 0;
        for (size_t k = 0; k < ra->n; k++) {
            reading |= at(ra, k)->state == RA_READING;
        }
        if (!reading) {
            return;
        }
        pthread_cond_wait(&ra->done, &ra->mu);
    }
}

void readahead_reset(struct readahead *ra)
{
    pthread_mutex_lock(&ra->mu);
    wait_idle(ra);
    while (ra->n > 0) {
        pop_head(ra);
    }
    pthread_mutex_unlock(&ra->mu);
}

void readahead_free(struct readahead *ra)
{
    if (!ra) {
        return;
    }
    if (ra->started) {
        pthread_mutex_lock(&ra->mu);
        ra->stop = 1;
        pthread_cond_signal(&ra->work);
        pthread_mutex_unlock(&ra->mu);
        pthread_join(ra->thread, NULL);
    }
    while (ra->n > 0) {
        pop_head(ra);
    }
    while (ra->ntrash > 0) {
        block_clear(&ra->trash[--ra->ntrash]);
    }
    if (ra->fd >= 0) {
        close(ra->fd);
    }
    buf_clear(&ra->raw);
    pthread_cond_destroy(&ra->work);
    pthread_cond_destroy(&ra->done);
    pthread_mutex_destroy(&ra->mu);
    free(ra->dir);
    free(ra);
}

int readahead_want(struct readahead *ra, const uint8_t hash32[32], int file, uint32_t pos)
{
    int ok = 1;
    pthread_mutex_lock(&ra->mu);
    for (size_t k = 0; k < ra->n; k++) {
        if (memcmp(at(ra, k)->hash, hash32, 32) == 0) {
            goto out; /* already asked for */
        }
    }
    if (ra->n == READAHEAD_DEPTH) {
        ok = 0;
        goto out;
    }
    if (!ra->started) {
        if (pthread_create(&ra->thread, NULL, reader_main, ra) != 0) {
            ok = 0; /* no thread: the caller reads blocks itself */
            goto out;
        }
        ra->started = 1;
    }
    struct ra_item *it = at(ra, ra->n++);
    memcpy(it->hash, hash32, 32);
    it->file = file;
    it->pos = pos;
    it->state = RA_QUEUED;
    it->rc = RC_OK;
    block_init(&it->b);
    pthread_cond_signal(&ra->work);
out:
    pthread_mutex_unlock(&ra->mu);
    return ok;
}

int readahead_take(struct readahead *ra, const uint8_t hash32[32], struct block *b)
{
    pthread_mutex_lock(&ra->mu);
    size_t k = 0;
    while (k < ra->n && memcmp(at(ra, k)->hash, hash32, 32) != 0) {
        k++;
    }
    if (k == ra->n) {
        wait_idle(ra);
        while (ra->n > 0) {
            pop_head(ra);
        }
        pthread_mutex_unlock(&ra->mu);
        return RC_NOT_FOUND;
    }
    /* Those before it were read in vain (the reader reads in order: none is queued still
     * behind one being read, so waiting for the one asked for waits for them too). */
    while (at(ra, k)->state != RA_DONE) {
        pthread_cond_wait(&ra->done, &ra->mu);
    }
    for (; k > 0; k--) {
        pop_head(ra);
    }
    struct ra_item *it = at(ra, 0);
    int rc = it->rc;
    if (rc == RC_OK) {
        *b = it->b;
        block_init(&it->b);
    }
    pop_head(ra);
    pthread_mutex_unlock(&ra->mu);
    return rc;
}

void readahead_counters(const struct readahead *ra, uint64_t *blocks, uint64_t *ns)
{
    pthread_mutex_lock((pthread_mutex_t *)&ra->mu);
    *blocks = ra->blocks;
    *ns = ra->ns;
    pthread_mutex_unlock((pthread_mutex_t *)&ra->mu);
}

void readahead_dispose(struct readahead *ra, struct block *b)
{
    pthread_mutex_lock(&ra->mu);
    if (ra->started && !ra->stop && ra->ntrash < READAHEAD_TRASH) {
        ra->trash[ra->ntrash++] = *b;
        block_init(b);
        pthread_cond_signal(&ra->work);
    }
    pthread_mutex_unlock(&ra->mu);
    block_clear(b); /* not taken: freed here */
}
