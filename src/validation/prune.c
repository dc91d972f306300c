/* Pruning: which blk/rev files to delete (Core's FindFilesToPrune and
 * FindFilesToPruneManual) and what deleting one does to the block index (PruneOneBlockFile).
 * flush.c calls these inside a flush, after the coins reached the store at the tip, and
 * deletes the files once the block index that no longer refers to them is on disk
 * (doc/architecture.md, "Pruning"). Calls chainstate.c and the candidate set only. */
#include <inttypes.h>
#include <string.h>

#include "util/log.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"

/* The highest block the prune locks let go (Core's FlushStateToDisk: each lock keeps its
 * index's best block, less PRUNE_LOCK_BUFFER and one more, never below 1), logging the lock
 * that limits it; last when no lock is lower. */
static int32_t apply_prune_locks(struct chainstate *cs, int32_t last)
{
    char limiting[32] = "";
    pthread_mutex_lock(&cs->prune_lock_mu);
    for (size_t i = 0; i < CHAINSTATE_MAX_PRUNE_LOCKS; i++) {
        if (!cs->prune_locks[i].name[0]) {
            continue;
        }
        int32_t lock = cs->prune_locks[i].height - PRUNE_LOCK_BUFFER - 1;
        last = lock < last ? lock : last;
        last = last > 1 ? last : 1;
        if (last == lock) {
            memcpy(limiting, cs->prune_locks[i].name, sizeof(limiting));
        }
    }
    pthread_mutex_unlock(&cs->prune_lock_mu);
    if (limiting[0]) {
        LOG(LOG_CAT_PRUNE, LOG_LVL_DEBUG, "%s limited pruning to height %d", limiting, last);
    }
    return last;
}

/* Core's GetPruneRange: the highest block whose file may go, MIN_BLOCKS_TO_KEEP below the
 * tip and not above last. The lowest is prune_range_min's. */
static int32_t prune_range_max(struct chainstate *cs, int32_t last)
{
    if (cs->active.height <= 0) {
        return 0;
    }
    int32_t max = cs->active.height - MIN_BLOCKS_TO_KEEP;
    max = max > 0 ? max : 0;
    return last < max ? last : max;
}

/* The lowest block whose file may go: above a UTXO snapshot's base while the background
 * chainstate still needs the blocks below it (Core's GetPruneRange), else 0. */
static uint32_t prune_range_min(const struct chainstate *cs)
{
    return cs->bg ? (uint32_t)cs->bg->target->height + 1 : 0;
}

static void add_file(struct prune_set *s, int n)
{
    s->files = xrealloc(s->files, (size_t)(s->n + 1) * sizeof(*s->files));
    s->files[s->n++] = n;
}

void chainstate_prune_find(struct chainstate *cs, int32_t manual, struct prune_set *s)
{
    memset(s, 0, sizeof(*s));
    uint64_t target = cs->opt.prune_target;
    if (!target || cs->active.height < 0) {
        return;
    }
    int32_t last = apply_prune_locks(cs, cs->active.height);
    int nfiles = blockstore_file_count(cs->store);
    if (manual > 0) {
        /* Core's FindFilesToPruneManual: every file wholly at or below the height. */
        int32_t max = prune_range_max(cs, manual < last ? manual : last);
        for (int i = 0; i + 1 < nfiles; i++) {
            const struct blockfile_info *f = blockstore_file_info(cs->store, i);
            if (f->size > 0 && f->height_last <= (uint32_t)max &&
                f->height_first >= prune_range_min(cs)) {
                add_file(s, i);
            }
        }
        LOG_INFO("[normal] Prune (Manual): prune_height=%d removed %d blk/rev pairs", max, s->n);
        return;
    }
    if (target == CHAINSTATE_PRUNE_MANUAL ||
        cs->active.height <= chainstate_prune_after_height(cs)) {
        return; /* -prune=1 prunes only when asked; nothing this low (Core's) */
    }
    int32_t max = prune_range_max(cs, last);
    /* Core counts the bytes of the records; bitnode counts what the files take on disk
     * (their preallocated tails too), so that du of blocks/ stays under the target. */
    uint64_t usage = 0;
    for (int i = 0; i < nfiles; i++) {
        usage += blockstore_file_allocated(cs->store, i);
    }
    uint64_t before = usage;
    uint64_t buffer = BLOCKSTORE_BLK_CHUNK + BLOCKSTORE_REV_CHUNK;
    if (usage + buffer >= target) {
        /* In IBD, room for the blocks between the tip and the best header (Core's 1 MB a
         * block) as well. */
        struct block_index *hdr = cs->best_header;
        if (chainstate_in_ibd(cs) && hdr && hdr->height > cs->active.height) {
            buffer += 1000000ULL * (uint64_t)(hdr->height - cs->active.height);
        }
        for (int i = 0; i + 1 < nfiles; i++) {
            const struct blockfile_info *f = blockstore_file_info(cs->store, i);
            if (f->size == 0) {
                continue;
            }
            if (usage + buffer < target) {
                break;
            }
            if (f->height_last > (uint32_t)max || f->height_first < prune_range_min(cs)) {
                continue;
            }
            usage -= blockstore_file_allocated(cs->store, i);
            add_file(s, i);
        }
    }
    LOG(LOG_CAT_PRUNE, LOG_LVL_DEBUG,
        "[normal] target=%" PRIu64 "MiB actual=%" PRIu64 "MiB diff=%" PRId64
        "MiB min_height=0 max_prune_height=%d removed %d blk/rev pairs",
        target >> 20, before >> 20, ((int64_t)target - (int64_t)before) / (1 << 20), max, s->n);
}

struct clear_ctx {
    struct chainstate *cs;
    const uint8_t *pruned; /* by file number */
    int nfiles;
};

static int clear_entry(void *ctx, struct block_index *e)
{
    struct clear_ctx *c = ctx;
    if ((e->status & (BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO)) && e->file >= 0 &&
        e->file < c->nfiles && c->pruned[e->file]) {
        e->status &= ~(uint32_t)(BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO);
        e->file = -1;
        e->data_pos = e->undo_pos = 0;
        chainstate_mark_dirty(c->cs, e);
        candidates_forget(&c->cs->cand, e);
    }
    return 0;
}

void chainstate_prune_apply(struct chainstate *cs, const struct prune_set *s)
{
    if (s->n == 0) {
        return;
    }
    struct clear_ctx c = {cs, NULL, blockstore_file_count(cs->store)};
    uint8_t *pruned = xcalloc((size_t)c.nfiles, 1);
    for (int i = 0; i < s->n; i++) {
        pruned[s->files[i]] = 1;
        blockstore_prune_file(cs->store, s->files[i]);
    }
    c.pruned = pruned;
    block_tree_foreach(cs->tree, clear_entry, &c);
    free(pruned);
    cs->have_pruned = 1;
}

void prune_set_clear(struct prune_set *s)
{
    free(s->files);
    memset(s, 0, sizeof(*s));
}
