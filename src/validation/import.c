#include "validation/import.h"

#include <string.h>
#include <time.h>

#include "blockstore/blockfile.h"
#include "crypto/hash.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/validator.h"

#define IMPORT_WINDOW 8          /* blocks handed to the validation thread, not yet done */
#define IMPORT_HEADER_BATCH 2000 /* headers per job in the header pass */

struct held {
    uint8_t parent[32];
    int file; /* index into im->files */
    uint64_t offset;
    uint32_t len;
};

/* A block in flight to the validation thread. */
struct slot {
    struct validator_job job;
    struct block_pos pos;
    uint8_t parent[32]; /* the block's hash is job.hash */
    int file;
    uint64_t offset;
};

struct importer {
    char err[512]; /* the last failure of the import's own reading ("" none) */
    struct validator *v;
    struct chainstate *cs;
    int reindex;
    struct blockfile **files;
    int *file_numbers;
    int nfiles;
    struct held *held; /* blocks whose parent is not known yet */
    size_t nheld, capheld;
    struct held *ready; /* blocks whose parent came: to be handed over next */
    size_t nready, capready;
    struct slot ring[IMPORT_WINDOW]; /* in flight, oldest at ring_head */
    size_t ring_head, ring_n;
    struct import_stats stats;
    import_interrupt_fn interrupt;
    int64_t last_log;
    uint64_t failed_before; /* the chainstate's blocks_failed when last counted */
    int rc;                 /* the first system error a job met */
};

static uint64_t blocks_failed(struct chainstate *cs)
{
    struct chainstate_counters c;
    chainstate_read_lock(cs);
    chainstate_get_counters(cs, &c);
    chainstate_read_unlock(cs);
    return c.blocks_failed;
}

struct importer *importer_new(struct validator *v, int reindex)
{
    struct importer *im = xcalloc(1, sizeof(*im));
    im->v = v;
    im->cs = validator_chainstate(v);
    im->reindex = reindex;
    im->last_log = (int64_t)time(NULL);
    im->failed_before = blocks_failed(im->cs);
    return im;
}

static void drain(struct importer *im);

void importer_free(struct importer *im)
{
    if (!im) {
        return;
    }
    drain(im); /* no job may outlive its slot */
    for (int i = 0; i < im->nfiles; i++) {
        blockfile_close(im->files[i]);
    }
    free(im->files);
    free(im->file_numbers);
    free(im->held);
    free(im->ready);
    free(im);
}

void importer_set_interrupt(struct importer *im, import_interrupt_fn fn)
{
    im->interrupt = fn;
}

static void push_held(struct held **list, size_t *n, size_t *cap, const uint8_t parent[32],
                      int file, uint64_t offset, uint32_t len)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *list = xrealloc(*list, *cap * sizeof(**list));
    }
    struct held *h = &(*list)[(*n)++];
    memcpy(h->parent, parent, 32);
    h->file = file;
    h->offset = offset;
    h->len = len;
}

static void hold(struct importer *im, const uint8_t parent[32], int file, uint64_t offset,
                 uint32_t len)
{
    push_held(&im->held, &im->nheld, &im->capheld, parent, file, offset, len);
    im->stats.held++;
}

static int stopping(struct importer *im)
{
    return chainstate_stop_requested(im->cs) || (im->interrupt && im->interrupt());
}

static void log_reading(struct importer *im)
{
    int64_t now = (int64_t)time(NULL);
    if (now - im->last_log < 10) {
        return;
    }
    chainstate_read_lock(im->cs);
    struct block_index *best = chainstate_best_header(im->cs);
    int height = best ? best->height : -1;
    chainstate_read_unlock(im->cs);
    LOG_INFO("import: read %llu blocks (%llu new, %zu waiting for a parent), best header "
             "height %d",
             (unsigned long long)im->stats.records, (unsigned long long)im->stats.accepted,
             im->nheld, height);
    im->last_log = now;
}

/* What the validation thread said about the oldest block in flight. */
static void collect(struct importer *im, struct slot *s)
{
    struct validator_job *j = &s->job;
    if (j->rc == RC_INVALID && j->st.result == VRESULT_MISSING_PREV) {
        /* Its parent is not known yet (later in the file, or in a later file): wait for it,
         * by position, not bytes, so memory stays bounded. */
        if (log_enabled(LOG_CAT_REINDEX, LOG_LVL_DEBUG)) {
            char hx[65], px[65];
            hex_encode_rev(hx, s->job.hash, 32);
            hex_encode_rev(px, s->parent, 32);
            LOG(LOG_CAT_REINDEX, LOG_LVL_DEBUG,
                "LoadExternalBlockFile: Out of order block %s, parent %s not known", hx, px);
        }
        hold(im, s->parent, s->file, s->offset, (uint32_t)j->len);
        return;
    }
    if (j->rc == RC_INVALID) {
        char hx[65];
        hex_encode_rev(hx, s->job.hash, 32);
        LOG_WARN("import: block %s at offset %llu rejected: %s (%s)", hx,
                 (unsigned long long)s->offset, j->st.reject, j->st.debug);
        im->stats.invalid++;
        return;
    }
    if (j->rc) {
        if (!im->rc) {
            im->rc = j->rc;
        }
        return;
    }
    if (j->is_new) {
        im->stats.accepted++;
    } else {
        im->stats.known++;
    }
    /* Children that were waiting for this block go next. */
    for (size_t i = 0; i < im->nheld;) {
        struct held *h = &im->held[i];
        if (memcmp(h->parent, s->job.hash, 32) == 0) {
            push_held(&im->ready, &im->nready, &im->capready, h->parent, h->file, h->offset,
                      h->len);
            im->held[i] = im->held[--im->nheld];
        } else {
            i++;
        }
    }
}

/* Collects the blocks in flight that are done, oldest first; with wait, first waits until
 * the wait oldest are (jobs are done in order), so that the thread sleeps once for several
 * blocks. */
static void reap(struct importer *im, size_t wait)
{
    if (wait > im->ring_n) {
        wait = im->ring_n;
    }
    if (wait) {
        validator_wait(im->v, &im->ring[(im->ring_head + wait - 1) % IMPORT_WINDOW].job);
    }
    while (im->ring_n) {
        struct slot *s = &im->ring[im->ring_head];
        if (!validator_done(im->v, &s->job)) {
            break;
        }
        collect(im, s);
        im->ring_head = (im->ring_head + 1) % IMPORT_WINDOW;
        im->ring_n--;
    }
}

/* Hands one record to the validation thread (a slot freed first if all are in flight). */
static void submit(struct importer *im, int file, const struct blockfile_record *rec,
                   const uint8_t hash[32])
{
    while (im->ring_n == IMPORT_WINDOW) {
        reap(im, IMPORT_WINDOW / 2);
    }
    struct slot *s = &im->ring[(im->ring_head + im->ring_n) % IMPORT_WINDOW];
    memset(s, 0, sizeof(*s));
    memcpy(s->parent, rec->data + 4, 32);
    s->file = file;
    s->offset = rec->offset;
    s->pos.file = im->file_numbers[file];
    s->pos.pos = (uint32_t)rec->offset;
    s->job.work = VALIDATOR_BLOCK;
    s->job.data = rec->data;
    s->job.len = rec->len;
    s->job.pos = im->reindex ? &s->pos : NULL;
    s->job.precheck = 1;
    s->job.import = 1;
    memcpy(s->job.hash, hash, 32); /* the precheck's key: hashed here once */
    if (validator_submit(im->v, &s->job) != RC_OK) {
        if (!im->rc) {
            im->rc = RC_STOPPED;
        }
        return; /* done already, with RC_STOPPED */
    }
    im->ring_n++;
}

/* Hands over the blocks whose parent came. */
static void submit_ready(struct importer *im)
{
    while (im->nready && !im->rc) {
        struct held h = im->ready[--im->nready];
        struct blockfile_record rec;
        uint8_t hash[32];
        if (blockfile_read_at(im->files[h.file], h.offset, h.len, &rec) == RC_OK) {
            hash_sha256d(hash, rec.data, 80);
            if (log_enabled(LOG_CAT_REINDEX, LOG_LVL_DEBUG)) {
                char hx[65], px[65];
                hex_encode_rev(hx, hash, 32);
                hex_encode_rev(px, h.parent, 32);
                LOG(LOG_CAT_REINDEX, LOG_LVL_DEBUG,
                    "LoadExternalBlockFile: Processing out of order child %s of %s", hx, px);
            }
            submit(im, h.file, &rec, hash);
        }
    }
}

/* Waits for every block in flight, and those they release, to be done. */
static void drain(struct importer *im)
{
    while (im->ring_n || (im->nready && !im->rc)) {
        reap(im, 1);
        submit_ready(im);
    }
}

/* Reads the current file's next record: hands it over, holds it for its parent, or counts
 * it known. Returns 1 when a record was read, 0 at the end of the file. */
static int pump(struct importer *im, int cur)
{
    struct blockfile_record rec;
    /* The records in flight stay where they are (an obfuscated file's pages given back are
     * gone). */
    uint64_t keep = UINT64_MAX;
    for (size_t k = 0; k < im->ring_n; k++) {
        const struct slot *s = &im->ring[(im->ring_head + k) % IMPORT_WINDOW];
        if (s->file == cur && s->offset < keep) {
            keep = s->offset;
        }
    }
    blockfile_keep_from(im->files[cur], keep);
    if (blockfile_next(im->files[cur], &rec) != 1) {
        return 0;
    }
    uint8_t hash[32];
    im->stats.records++;
    hash_sha256d(hash, rec.data, 80);
    /* Known or orphan: the validation thread tells from the header alone (the job's
     * precheck), so this thread never waits for the chain lock. */
    submit(im, cur, &rec, hash);
    reap(im, 0);
    submit_ready(im);
    log_reading(im);
    return 1;
}

static int set_header_only(struct chainstate *cs, void *ctx)
{
    chainstate_set_best_header_only(cs, ctx != NULL);
    return RC_OK;
}

/* Runs a setting on the validation thread, in order with the blocks handed over. */
static int header_only(struct importer *im, int on)
{
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = set_header_only, .ctx = on ? im : NULL};
    return validator_run(im->v, &j);
}

/* The header pass's state: the batch being filled (with each header's hash), and the
 * headers met before their parent (Core's "out of order" blocks), waiting for it. */
struct held_header {
    uint8_t header[80];
    uint8_t hash[32];
};

struct header_pass {
    struct importer *im;
    uint8_t *batch;
    uint8_t (*hashes)[32];
    size_t nb;
    struct held_header *held;
    size_t nheld, capheld;
    uint64_t ok;
    int rc;
};

#define IMPORT_MAX_HELD_HEADERS 100000 /* beyond that, left to the block pass */

static void flush_headers(struct header_pass *hp)
{
    if (!hp->nb || hp->rc) {
        hp->nb = 0;
        return;
    }
    struct validator_job j = {.work = VALIDATOR_HEADERS, .data = hp->batch, .len = hp->nb * 80};
    int rc = validator_run(hp->im->v, &j);
    hp->ok += j.accepted;
    hp->rc = rc == RC_INVALID ? RC_OK : rc; /* reported by the block pass */
    hp->nb = 0;
}

/* Is the header whose parent is prev in order: its parent in the batch, in the tree, or
 * none (a genesis block)? */
static int parent_known(struct header_pass *hp, const uint8_t prev[32])
{
    static const uint8_t zero[32];
    for (size_t i = hp->nb; i-- > 0;) {
        if (memcmp(hp->hashes[i], prev, 32) == 0) {
            return 1; /* nearly always the last one */
        }
    }
    if (memcmp(prev, zero, 32) == 0) {
        return 1;
    }
    chainstate_read_lock(hp->im->cs);
    int known = block_tree_find(chainstate_tree(hp->im->cs), prev) != NULL;
    chainstate_read_unlock(hp->im->cs);
    return known;
}

static void append_header(struct header_pass *hp, const uint8_t *header, const uint8_t hash[32])
{
    if (hp->nb == IMPORT_HEADER_BATCH) {
        flush_headers(hp);
    }
    memcpy(hp->batch + hp->nb * 80, header, 80);
    memcpy(hp->hashes[hp->nb], hash, 32);
    hp->nb++;
}

/* Adds a header in order, then the held headers that were waiting for it (and theirs). */
static void add_header(struct header_pass *hp, const uint8_t *header, const uint8_t hash[32])
{
    uint8_t (*todo)[32] = xmalloc(32);
    size_t ntodo = 1, cap = 1;
    append_header(hp, header, hash);
    memcpy(todo[0], hash, 32);
    while (ntodo && hp->nheld) {
        uint8_t parent[32];
        memcpy(parent, todo[--ntodo], 32);
        for (size_t i = 0; i < hp->nheld;) {
            struct held_header h = hp->held[i];
            if (memcmp(h.header + 4, parent, 32) != 0) {
                i++;
                continue;
            }
            hp->held[i] = hp->held[--hp->nheld];
            if (log_enabled(LOG_CAT_REINDEX, LOG_LVL_DEBUG)) {
                char hx[65], px[65];
                hex_encode_rev(hx, h.hash, 32);
                hex_encode_rev(px, parent, 32);
                LOG(LOG_CAT_REINDEX, LOG_LVL_DEBUG,
                    "LoadExternalBlockFile: Processing out of order child %s of %s", hx, px);
            }
            append_header(hp, h.header, h.hash);
            if (ntodo == cap) {
                cap *= 2;
                todo = xrealloc(todo, cap * 32);
            }
            memcpy(todo[ntodo++], h.hash, 32);
        }
    }
    free(todo);
}

/* A header met before its parent: held until the parent comes (Core's words). */
static void hold_header(struct header_pass *hp, const uint8_t *header, const uint8_t hash[32])
{
    if (log_enabled(LOG_CAT_REINDEX, LOG_LVL_DEBUG)) {
        char hx[65], px[65];
        hex_encode_rev(hx, hash, 32);
        hex_encode_rev(px, header + 4, 32);
        LOG(LOG_CAT_REINDEX, LOG_LVL_DEBUG,
            "LoadExternalBlockFile: Out of order block %s, parent %s not known", hx, px);
    }
    if (hp->nheld >= IMPORT_MAX_HELD_HEADERS) {
        return;
    }
    if (hp->nheld == hp->capheld) {
        hp->capheld = hp->capheld ? 2 * hp->capheld : 16;
        hp->held = xrealloc(hp->held, hp->capheld * sizeof(*hp->held));
    }
    memcpy(hp->held[hp->nheld].header, header, 80);
    memcpy(hp->held[hp->nheld].hash, hash, 32);
    hp->nheld++;
}

/* Reads the file's headers first (in file order; one met before its parent waits for it
 * further on in the file), as headers-first sync has them: the blocks are then connected
 * while they are read along the best header chain only (a branch that loses later in the
 * file is stored, never connected), and -assumevalid knows its block. Headers that fail,
 * and those whose parent never came, are left for the block pass to report. */
static int header_pass(struct importer *im, struct blockfile *bf)
{
    struct blockfile_record rec;
    struct header_pass hp = {.im = im};
    hp.batch = xmalloc(IMPORT_HEADER_BATCH * 80);
    hp.hashes = xmalloc(IMPORT_HEADER_BATCH * 32);
    uint64_t n = 0;
    while (hp.rc == RC_OK && !stopping(im) && blockfile_next(bf, &rec) == 1) {
        uint8_t hash[32];
        hash_sha256d(hash, rec.data, 80);
        n++;
        if (parent_known(&hp, rec.data + 4)) {
            add_header(&hp, rec.data, hash);
        } else {
            hold_header(&hp, rec.data, hash);
        }
    }
    flush_headers(&hp);
    free(hp.batch);
    free(hp.hashes);
    free(hp.held);
    blockfile_rewind(bf);
    LOG_INFO("import: read %llu headers first (%llu taken)",
             (unsigned long long)n, (unsigned long long)hp.ok);
    return hp.rc;
}

/* What a file held besides blocks, once it was read through (the header pass): logged, so
 * that an operator learns that bytes were passed over and where. */
static void log_file_damage(const char *path, const struct blockfile *bf)
{
    struct blockfile_stats st;
    blockfile_get_stats(bf, &st);
    if (st.garbage_bytes) {
        LOG_WARN("import: %s: skipped %llu bytes that are no record of this network (first at "
                 "offset %llu)",
                 path, (unsigned long long)st.garbage_bytes,
                 (unsigned long long)st.first_garbage_at);
    }
    if (st.bad_frames) {
        LOG_WARN("import: %s: %llu record headers with a length outside [%u, %u] skipped (first "
                 "at offset %llu)",
                 path, (unsigned long long)st.bad_frames, BLOCKFILE_MIN_RECORD,
                 BLOCKFILE_MAX_RECORD, (unsigned long long)st.first_bad_frame_at);
    }
    if (st.records == 0 && blockfile_size(bf) > 0) {
        LOG_WARN("import: %s holds no block of this network (another network's magic, or not "
                 "a block file)",
                 path);
    }
}

int importer_add_file(struct importer *im, const char *path, int file_number)
{
    struct blockfile *bf = NULL;
    char err[512];
    const struct chain_params *p = chainstate_params(im->cs);
    /* The node's own files are under its XOR key; -loadblock files are read as they are,
     * as Core's. */
    int rc = blockfile_open_obfuscated(&bf, path, p->magic,
                                       im->reindex ? chainstate_blocks_obfuscation(im->cs) : NULL,
                                       err, sizeof(err));
    if (rc) {
        LOG_ERROR("import: %s", err);
        return RC_NOT_FOUND; /* an input to skip, not a failure of the node's own storage */
    }
    im->files = xrealloc(im->files, (size_t)(im->nfiles + 1) * sizeof(*im->files));
    im->file_numbers = xrealloc(im->file_numbers, (size_t)(im->nfiles + 1) * sizeof(int));
    im->files[im->nfiles] = bf;
    im->file_numbers[im->nfiles] = file_number;
    int cur = im->nfiles++;
    LOG_INFO("import: reading %s", path);
    /* Blocks are connected as they are read (as Core's -loadblock did through 0.13): the
     * validation thread accepts each next block while the pool checks the one before. */
    rc = header_pass(im, bf);
    if (rc == RC_OK && !stopping(im)) {
        log_file_damage(path, bf);
    }
    if (rc == RC_OK) {
        rc = header_only(im, 1);
    }
    while (rc == RC_OK && !im->rc && !stopping(im) && pump(im, cur)) {
    }
    drain(im);
    /* Nothing of this file is in flight now: its pages go (a block held for its parent is
     * read again when the parent comes). */
    blockfile_keep_from(bf, UINT64_MAX);
    blockfile_release(bf);
    int r2 = header_only(im, 0);
    rc = rc ? rc : im->rc ? im->rc : r2;
    struct blockfile_stats st;
    blockfile_get_stats(bf, &st);
    if (rc == RC_OK && st.read_error) {
        snprintf(im->err, sizeof(im->err), "import: reading %s at offset %llu: %s", path,
                 (unsigned long long)st.read_error_at, strerror(st.read_error));
        LOG_ERROR("%s", im->err);
        rc = RC_IO;
    }
    if (rc == RC_STOPPED) {
        rc = RC_OK; /* shutting down: not a failure of the import */
    }
    if (rc) {
        return rc;
    }
    if (st.truncated_tail) {
        LOG_WARN("import: %s ends inside a record at offset %llu (ignored)", path,
                 (unsigned long long)st.truncated_at);
    }
    return RC_OK;
}

/* The end of an import: everything on disk (a VALIDATOR_CALL job). */
static int flush_all(struct chainstate *cs, void *ctx)
{
    (void)ctx;
    return chainstate_flush(cs, FLUSH_ALWAYS);
}

const char *importer_error(const struct importer *im)
{
    return im->err;
}

int importer_finish(struct importer *im, struct import_stats *stats)
{
    drain(im);
    int rc = im->rc == RC_STOPPED ? RC_OK : im->rc;
    if (rc == RC_OK && !stopping(im)) {
        struct validator_job j = {.work = VALIDATOR_ACTIVATE};
        rc = validator_run(im->v, &j);
        rc = rc == RC_STOPPED ? RC_OK : rc;
    }
    /* A finished import is never redone: the blocks, the block index and the coins reach
     * the disk before the summary below says it is over (a kill after it redoes nothing;
     * without this, a kill before the hourly flush connected the blocks again). */
    if (rc == RC_OK && !stopping(im)) {
        struct validator_job j = {.work = VALIDATOR_CALL, .fn = flush_all};
        rc = validator_run(im->v, &j);
        rc = rc == RC_STOPPED ? RC_OK : rc;
    }
    im->stats.orphans = im->nheld;
    /* Blocks stored, then found invalid when connected (a bad signature, a spent input):
     * invalid too, as much as those refused when read. */
    uint64_t failed = blocks_failed(im->cs);
    im->stats.invalid += failed - im->failed_before;
    im->failed_before = failed;
    if (im->nheld) {
        char hx[65];
        hex_encode_rev(hx, im->held[0].parent, 32);
        LOG_WARN("import: %zu blocks never found their parent (first missing parent %s)",
                 im->nheld, hx);
    }
    LOG_INFO("import: %llu records, %llu new blocks, %llu known, %llu invalid, %llu held "
             "for a parent",
             (unsigned long long)im->stats.records, (unsigned long long)im->stats.accepted,
             (unsigned long long)im->stats.known, (unsigned long long)im->stats.invalid,
             (unsigned long long)im->stats.held);
    if (stats) {
        *stats = im->stats;
    }
    return rc;
}
