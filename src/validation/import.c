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
};

struct importer *importer_new(struct chainstate *cs, int reindex)
{
    struct importer *im = xcalloc(1, sizeof(*im));
    im->cs = cs;
    im->reindex = reindex;
    im->last_log = (int64_t)time(NULL);
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
static int offer(struct importer *im, int file, const struct blockfile_record *first)
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
        /* Keep what was stored safe from time to time; connecting waits for the end, as in
         * Core, so that blocks of a branch that loses are stored but never connected. */
        if ((rc = chainstate_flush(im->cs, FLUSH_PERIODIC))) {
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

int importer_add_file(struct importer *im, const char *path, int file_number)
{
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    char err[512];
    const struct chain_params *p = chainstate_params(im->cs);
    int rc = blockfile_open(&bf, path, p->magic, err, sizeof(err));
    if (rc) {
        LOG_ERROR("import: %s", err);
        return rc;
    }
    im->files = xrealloc(im->files, (size_t)(im->nfiles + 1) * sizeof(*im->files));
    im->file_numbers = xrealloc(im->file_numbers, (size_t)(im->nfiles + 1) * sizeof(int));
    im->files[im->nfiles] = bf;
    im->file_numbers[im->nfiles] = file_number;
    int f = im->nfiles++;
    LOG_INFO("import: reading %s", path);
    struct block_tree *tree = chainstate_tree(im->cs);
    while (blockfile_next(bf, &rec) == 1) {
        uint8_t hash[32];
        im->stats.records++;
        hash_sha256d(hash, rec.data, 80);
        chainstate_lock(im->cs);
        struct block_index *known = block_tree_find(tree, hash);
        int have = known && (known->status & BLOCK_HAVE_DATA);
        const uint8_t *parent = rec.data + 4;
        int orphan = !have && memcmp(hash, p->genesis_hash, 32) != 0 &&
                     !block_tree_find(tree, parent);
        chainstate_unlock(im->cs);
        if (have) {
            im->stats.known++;
            continue;
        }
        if (orphan) {
            hold(im, parent, f, rec.offset, (uint32_t)rec.len);
            continue;
        }
        chainstate_lock(im->cs);
        rc = offer(im, f, &rec);
        chainstate_unlock(im->cs);
        if (rc) {
            return rc;
        }
        if (chainstate_stop_requested(im->cs) || (im->interrupt && im->interrupt())) {
            break;
        }
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
