#include "validation/import.h"

#include <string.h>
#include <time.h>

#include "blockstore/blockfile.h"
#include "crypto/hash.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct held {
    uint8_t parent[32];
    int file; /* index into im->files */
    uint64_t offset;
    uint32_t len;
};

struct importer {
    struct chainstate *cs;
    int reindex;
    struct blockfile **files;
    int *file_numbers;
    int nfiles;
    struct held *held;
    size_t nheld, capheld;
    struct import_stats stats;
    import_interrupt_fn interrupt;
    int64_t last_log;
    uint64_t failed_before; /* the chainstate's blocks_failed when last counted */
    /* The file being read (an index into files), and where an error met while reading it
     * from inside a connect (the overlap work) waits to be returned. */
    int cur;
    int cur_eof;
    int deferred_rc;
};

struct importer *importer_new(struct chainstate *cs, int reindex)
{
    struct importer *im = xcalloc(1, sizeof(*im));
    im->cs = cs;
    im->reindex = reindex;
    im->last_log = (int64_t)time(NULL);
    struct chainstate_counters c;
    chainstate_get_counters(cs, &c);
    im->failed_before = c.blocks_failed;
    return im;
}

void importer_free(struct importer *im)
{
    if (!im) {
        return;
    }
    for (int i = 0; i < im->nfiles; i++) {
        blockfile_close(im->files[i]);
    }
    free(im->files);
    free(im->file_numbers);
    free(im->held);
    free(im);
}

void importer_set_interrupt(struct importer *im, import_interrupt_fn fn)
{
    im->interrupt = fn;
}

static void hold(struct importer *im, const uint8_t parent[32], int file, uint64_t offset,
                 uint32_t len)
{
    if (im->nheld == im->capheld) {
        im->capheld = im->capheld ? 2 * im->capheld : 64;
        im->held = xrealloc(im->held, im->capheld * sizeof(*im->held));
    }
    struct held *h = &im->held[im->nheld++];
    memcpy(h->parent, parent, 32);
    h->file = file;
    h->offset = offset;
    h->len = len;
    im->stats.held++;
}

static void log_reading(struct importer *im)
{
    int64_t now = (int64_t)time(NULL);
    if (now - im->last_log < 10) {
        return;
    }
    struct block_index *best = chainstate_best_header(im->cs);
    LOG_INFO("import: read %llu blocks (%llu new, %zu waiting for a parent), best header "
             "height %d",
             (unsigned long long)im->stats.records, (unsigned long long)im->stats.accepted,
             im->nheld, best ? best->height : -1);
    im->last_log = now;
}

/* Offers one record; then every held block that was waiting for it, and so on. */
static int offer(struct importer *im, int file, const struct blockfile_record *first,
                 int in_connect)
{
    struct blockfile_record *work = xmalloc(sizeof(*work));
    int *work_file = xmalloc(sizeof(*work_file));
    size_t n = 1, cap = 1;
    int rc = RC_OK;
    work[0] = *first;
    work_file[0] = file;
    while (n) {
        struct blockfile_record rec = work[--n];
        int f = work_file[n];
        struct vstate st;
        struct block_pos pos = {im->file_numbers[f], (uint32_t)rec.offset};
        int is_new = 0;
        uint8_t hash[32];
        vstate_init(&st);
        hash_sha256d(hash, rec.data, 80);
        rc = chainstate_accept_block(im->cs, rec.data, rec.len, im->reindex ? &pos : NULL, &st,
                                     &is_new);
        if (rc == RC_INVALID) {
            char hx[65];
            hex_encode_rev(hx, hash, 32);
            LOG_WARN("import: block %s at offset %llu rejected: %s (%s)", hx,
                     (unsigned long long)rec.offset, st.reject, st.debug);
            im->stats.invalid++;
            rc = RC_OK;
            continue;
        }
        if (rc) {
            break;
        }
        if (is_new) {
            im->stats.accepted++;
        } else {
            im->stats.known++;
        }
        /* Keep what was stored safe from time to time (not in the middle of connecting a
         * block: the connect loop flushes after it). */
        if (!in_connect && (rc = chainstate_flush(im->cs, FLUSH_PERIODIC))) {
            break;
        }
        log_reading(im);
        /* Children that were waiting for this block. */
        for (size_t i = 0; i < im->nheld;) {
            if (memcmp(im->held[i].parent, hash, 32) == 0) {
                struct blockfile_record child;
                if (blockfile_read_at(im->files[im->held[i].file], im->held[i].offset,
                                      im->held[i].len, &child) == RC_OK) {
                    if (n == cap) {
                        cap *= 2;
                        work = xrealloc(work, cap * sizeof(*work));
                        work_file = xrealloc(work_file, cap * sizeof(*work_file));
                    }
                    work[n] = child;
                    work_file[n] = im->held[i].file;
                    n++;
                }
                im->held[i] = im->held[--im->nheld];
            } else {
                i++;
            }
        }
        if (chainstate_stop_requested(im->cs) || (im->interrupt && im->interrupt())) {
            break;
        }
    }
    free(work);
    free(work_file);
    return rc;
}

static int stopping(struct importer *im)
{
    return chainstate_stop_requested(im->cs) || (im->interrupt && im->interrupt());
}

/* Reads the current file's next record and offers it (or holds it for its parent).
 * Returns 1 when a record was read, 0 at the end of the file, or an error. Takes the chain
 * lock (recursive: the overlap work already holds it). */
static int pump(struct importer *im, int in_connect)
{
    struct blockfile_record rec;
    const struct chain_params *p = chainstate_params(im->cs);
    struct block_tree *tree = chainstate_tree(im->cs);
    chainstate_lock(im->cs); /* the file's cursor too: one reader at a time */
    if (im->cur_eof || blockfile_next(im->files[im->cur], &rec) != 1) {
        im->cur_eof = 1;
        chainstate_unlock(im->cs);
        return 0;
    }
    uint8_t hash[32];
    im->stats.records++;
    hash_sha256d(hash, rec.data, 80);
    struct block_index *known = block_tree_find(tree, hash);
    int have = known && (known->status & BLOCK_HAVE_DATA);
    const uint8_t *parent = rec.data + 4;
    int orphan =
        !have && memcmp(hash, p->genesis_hash, 32) != 0 && !block_tree_find(tree, parent);
    int rc = 1;
    if (have) {
        im->stats.known++;
    } else if (orphan) {
        hold(im, parent, im->cur, rec.offset, (uint32_t)rec.len);
    } else {
        rc = offer(im, im->cur, &rec, in_connect);
        rc = rc ? rc : 1;
    }
    chainstate_unlock(im->cs);
    return rc;
}

/* The overlap work: while the workers check a block's scripts, read and store the next
 * record of the file, so that the next block is parsed (and its header and body checked)
 * by the time its parent is connected. */
static void overlap(void *ctx)
{
    struct importer *im = ctx;
    if (im->deferred_rc || stopping(im)) {
        return;
    }
    int rc = pump(im, 1);
    if (rc == 1) {
        rc = chainstate_prefetch_recent(im->cs); /* its coins, from the database */
    }
    if (rc < 0) {
        im->deferred_rc = rc;
    }
}

/* Reads the file's headers first (in file order; one whose parent is not known yet is
 * skipped), as headers-first sync has them: the blocks are then connected while they are
 * read along the best header chain only (a branch that loses later in the file is stored,
 * never connected), and -assumevalid knows its block. Headers that fail are left for the
 * block pass to report. */
static void header_pass(struct importer *im, struct blockfile *bf)
{
    struct blockfile_record rec;
    uint64_t n = 0, ok = 0;
    while (blockfile_next(bf, &rec) == 1 && !stopping(im)) {
        struct vstate st;
        vstate_init(&st);
        n++;
        if (chainstate_accept_header(im->cs, rec.data, &st) == RC_OK) {
            ok++;
        }
    }
    blockfile_rewind(bf);
    LOG_INFO("import: read %llu headers first (%llu taken)",
             (unsigned long long)n, (unsigned long long)ok);
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
    int rc = blockfile_open(&bf, path, p->magic, err, sizeof(err));
    if (rc) {
        LOG_ERROR("import: %s", err);
        return RC_NOT_FOUND; /* an input to skip, not a failure of the node's own storage */
    }
    im->files = xrealloc(im->files, (size_t)(im->nfiles + 1) * sizeof(*im->files));
    im->file_numbers = xrealloc(im->file_numbers, (size_t)(im->nfiles + 1) * sizeof(int));
    im->files[im->nfiles] = bf;
    im->file_numbers[im->nfiles] = file_number;
    im->cur = im->nfiles++;
    im->cur_eof = 0;
    LOG_INFO("import: reading %s", path);
    /* Blocks are connected as they are read (as Core's -loadblock did through 0.13): each
     * connect reads the next record while its scripts are checked, so reading the file
     * never leaves the check pool idle. */
    header_pass(im, bf);
    if (!stopping(im)) {
        log_file_damage(path, bf);
    }
    chainstate_set_best_header_only(im->cs, 1);
    chainstate_set_overlap(im->cs, overlap, im);
    while (!stopping(im)) {
        int got = pump(im, 0);
        if (got <= 0) {
            rc = got;
            break;
        }
        if (stopping(im)) {
            break;
        }
        if ((rc = chainstate_activate_best_chain(im->cs))) {
            break;
        }
        if ((rc = im->deferred_rc)) {
            break;
        }
    }
    chainstate_set_overlap(im->cs, NULL, NULL);
    chainstate_set_best_header_only(im->cs, 0);
    if (rc == RC_OK) {
        rc = im->deferred_rc;
    }
    if (rc) {
        return rc;
    }
    struct blockfile_stats st;
    blockfile_get_stats(bf, &st);
    if (st.truncated_tail) {
        LOG_WARN("import: %s ends inside a record at offset %llu (ignored)", path,
                 (unsigned long long)st.truncated_at);
    }
    return RC_OK;
}

int importer_finish(struct importer *im, struct import_stats *stats)
{
    int rc = RC_OK;
    if (!chainstate_stop_requested(im->cs) && !(im->interrupt && im->interrupt())) {
        rc = chainstate_activate_best_chain(im->cs);
    }
    im->stats.orphans = im->nheld;
    /* Blocks stored, then found invalid when connected (a bad signature, a spent input):
     * invalid too, as much as those refused when read. */
    struct chainstate_counters c;
    chainstate_get_counters(im->cs, &c);
    im->stats.invalid += c.blocks_failed - im->failed_before;
    im->failed_before = c.blocks_failed;
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
