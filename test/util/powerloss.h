/* The power-loss layer's journal: written by the LD_PRELOAD shim (powerloss.c) while a
 * process runs, read by the restore step (powerloss_restore.c) after the process was
 * killed, to leave the watched tree as a power cut would have: only what was synced.
 *
 * The journal is a directory of its own (POWERLOSS_JOURNAL), outside the watched tree
 * (POWERLOSS_DIR) but on the same file system (files unlinked or replaced are kept there
 * by a hard link until their removal is durable):
 *
 *   f.<dev>.<ino>  one per file changed since its last fsync: struct pl_fhead (the file's
 *                  path and its size at that fsync), then records, each a struct pl_frec
 *                  and the bytes the file held there at that fsync (only bytes below the
 *                  synced size are saved, each once). Deleted when the file is synced.
 *   dirops         the directory operations made since the last commit (any fsync, see
 *                  powerloss.c), one a line, fields split by tabs:
 *                    C <path>                     a file created
 *                    M <path>                     a directory created
 *                    D <path>                     a directory removed
 *                    U <path> <saved>             a file unlinked (kept as <saved>)
 *                    R <from> <to> <saved>|-      a rename (<to>'s former file kept)
 *                    K <folder>                   (POWERLOSS_DIRSYNC=strict) the folder
 *                                                 was fsync'd: its operations above are
 *                                                 durable
 *                  Emptied at a commit.
 *   saved/N        the hard links named above; removed at a commit.
 *   counts         struct pl_counts, the sync calls counted per kind of file (mapped by
 *                  the shim; kept across runs until the file is deleted).
 */
#ifndef BITNODE_TEST_POWERLOSS_H
#define BITNODE_TEST_POWERLOSS_H

#include <stddef.h>
#include <stdint.h>

#define PL_FHEAD_MAGIC "PLFILE1"
#define PL_PATH_MAX 4096

struct pl_fhead {
    char magic[8];
    uint64_t dev, ino;
    uint64_t synced_size; /* the file's size at its last sync (0: created since) */
    char path[PL_PATH_MAX];
};

struct pl_frec {
    uint64_t off, len; /* then len bytes: what the file held there when last synced */
};

#define PL_COUNTS_MAGIC "PLCNT01"
#define PL_SLOTS 96
#define PL_LABEL 56

/* One kind of file, as "<folder>:<kind>" relative to the watched tree, the chain's folder
 * left out: "blocks:blk", "chainstate:log", "blocks/index:MANIFEST", "chainstate:dir". */
struct pl_count {
    char label[PL_LABEL];
    uint64_t fsync, fdatasync;
    uint64_t range_syncs; /* sync_file_range: starts write-back, makes nothing durable */
    uint64_t dsync_writes; /* writes on an O_SYNC/O_DSYNC descriptor: durable at once */
    uint64_t writes, bytes;
};

struct pl_counts {
    char magic[8];
    uint32_t n;
    uint32_t pad;
    uint64_t commits; /* fsyncs that made the pending directory operations durable */
    uint64_t msyncs, syncfs;
    struct pl_count slot[PL_SLOTS];
};

/* Rolls the watched tree back to what its last syncs made durable, as described above, and
 * empties the journal (the counts stay). Returns 0, or -1 with a message in err. */
int pl_restore(const char *journal_dir, char *err, size_t err_len);

/* Empties the journal as if everything were durable (a clean stop followed by sync(1)).
 * Returns 0, or -1 with a message in err. */
int pl_discard(const char *journal_dir, char *err, size_t err_len);

#endif
