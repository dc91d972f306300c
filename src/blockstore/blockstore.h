/* The block and undo files of a datadir (blocks/blk*.dat, blocks/rev*.dat), in Bitcoin
 * Core's layout (doc/files.md, "Block files" and "Undo files"):
 *
 *   blk record  := magic[4]  u32 size  block[size]
 *   rev record  := magic[4]  u32 size  block_undo[size]  sha256d(prev_block_hash || block_undo)
 *
 * A block goes into the current blk file, which rolls over at 128 MiB; its undo record goes
 * into the rev file of the same number, when the block is connected. Files grow in
 * preallocated chunks (16 MiB blk, 1 MiB rev) and a finished blk file is truncated to its
 * used size. Positions point at the first byte after the 8-byte frame.
 *
 * Writes are not durable until blockstore_sync(): the chainstate syncs the files before it
 * writes a state that refers to them (doc/architecture.md, "How a flush stays crash-safe").
 * Threads: the validation thread writes; readers (blockstore_read_block, _read_undo) may run
 * on other threads while it does not write (the chainstate's read lock keeps them apart).
 */
#ifndef BITNODE_BLOCKSTORE_BLOCKSTORE_H
#define BITNODE_BLOCKSTORE_BLOCKSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/obfuscation.h"

#define BLOCKSTORE_MAX_FILE_SIZE 0x8000000u /* 128 MiB */
#define BLOCKSTORE_BLK_CHUNK 0x1000000u     /* 16 MiB */
#define BLOCKSTORE_REV_CHUNK 0x100000u      /* 1 MiB */

/* What is in one blk file (Core's CBlockFileInfo; persisted by the block index). */
struct blockfile_info {
    uint32_t blocks;
    uint32_t size;      /* bytes of blk records */
    uint32_t undo_size; /* bytes of rev records */
    uint32_t height_first, height_last;
    uint64_t time_first, time_last;
};

/** Appends info in Core's CBlockFileInfo encoding (seven VARINTs). */
void blockfile_info_serialize(struct buf *out, const struct blockfile_info *info);
/** Parses exactly p[0..len). 0 or RC_CORRUPT. */
int blockfile_info_parse(struct blockfile_info *info, const uint8_t *p, size_t len);

struct blockstore;

/** Opens the files in dir (created if missing) for network magic4.
 *  In:  infos/nfiles: what the block index recorded about each file (may be 0 files);
 *       copied. New blocks go to the last file.
 *  Returns 0, or RC_IO with a message in err. */
int blockstore_open(struct blockstore **out, const char *dir, const uint8_t magic4[4],
                    const struct blockfile_info *infos, int nfiles, char *err, size_t err_len);
/** Closes the files (after a sync of anything written). NULL is a no-op. */
void blockstore_close(struct blockstore *bs);

/** Appends a serialized block. Out: *file and *pos where it now lives.
 *  Returns 0, or RC_IO (disk full, short write...) with nothing recorded: a retry writes
 *  over whatever part reached the disk. */
int blockstore_append_block(struct blockstore *bs, const uint8_t *data, size_t len,
                            uint32_t height, uint64_t time, int *file, uint32_t *pos);
/** Records a block that is already in blk file `file` at pos (a reindex reads our own
 *  files): the file's info grows to cover it, so that new blocks go after it. */
void blockstore_note_block(struct blockstore *bs, int file, uint32_t pos, size_t len,
                           uint32_t height, uint64_t time);
/** Reads the block record at (file, pos) into out (replacing its contents).
 *  Returns 0; RC_IO; RC_CORRUPT if the frame is not there or is out of range. */
int blockstore_read_block(struct blockstore *bs, int file, uint32_t pos, struct buf *out);

/** Appends an undo record for a block stored in file, whose parent is prev_hash32.
 *  Returns 0 with *pos, or RC_IO. */
int blockstore_append_undo(struct blockstore *bs, int file, const uint8_t prev_hash32[32],
                           const uint8_t *undo, size_t len, uint32_t *pos);
/** Reads the undo record at (file, pos), checking its checksum against prev_hash32.
 *  Returns 0; RC_IO; RC_CORRUPT on a bad frame or checksum. */
int blockstore_read_undo(struct blockstore *bs, int file, uint32_t pos,
                         const uint8_t prev_hash32[32], struct buf *out);

/** fsyncs every file written since the last sync, then the blocks directory if a file was
 *  created in it since (as Core's FlatFileSeq::Flush, DirectoryCommit): the block index
 *  written after this may name the file. Returns 0 or RC_IO. */
int blockstore_sync(struct blockstore *bs);

/** Number of blk files known (including the current one). */
int blockstore_file_count(const struct blockstore *bs);
/** The info of file n (borrowed), or NULL. */
const struct blockfile_info *blockstore_file_info(const struct blockstore *bs, int n);
/** Files whose info changed since the last call (bitmap by file number, up to nfiles). The
 *  caller persists them; returns the number written to out. */
int blockstore_take_dirty_files(struct blockstore *bs, int *out, int max);
/** The path of blk (undo=0) or rev (undo=1) file n, into out. */
void blockstore_path(const struct blockstore *bs, int n, int undo, char *out, size_t out_len);
/** The last error message. */
const char *blockstore_error(const struct blockstore *bs);
/** 1 once a write or an allocation failed for want of disk space (ENOSPC, or less than
 *  Core's 50 MiB margin left before a new chunk: fs_disk_space_ok): the failure is Core's
 *  "Disk space is too low!", not damage. */
int blockstore_out_of_space(const struct blockstore *bs);

/* ---- Pruning (Core's PruneOneBlockFile, UnlinkPrunedFiles; doc/files.md) ---- */

#define BLOCKSTORE_FAST_PRUNE_FILE_SIZE 0x10000u /* -fastprune: 64 KiB blk files */
#define BLOCKSTORE_FAST_PRUNE_CHUNK 0x4000u      /* and 16 KiB blk chunks (Core's) */

/** -fastprune: blk files roll over at 64 KiB (a larger block gets a file of its own) and
 *  grow in 16 KiB chunks; rev chunks keep their size. */
void blockstore_set_fast_prune(struct blockstore *bs);
/** Bytes of blk and rev records in all files (Core's CalculateCurrentUsage). */
uint64_t blockstore_usage(const struct blockstore *bs);
/** Bytes file n takes on disk: its records and its preallocated tail, blk and rev. */
uint64_t blockstore_file_allocated(const struct blockstore *bs, int n);
/** 1 if a file or a chunk was begun since the last call (the usage grew: time to see
 *  whether to prune, Core's m_check_for_pruning); clears the flag. */
int blockstore_take_check_for_pruning(struct blockstore *bs);
/** Sets that flag (start-up, a change of target). */
void blockstore_request_check_for_pruning(struct blockstore *bs);
/** Forgets file n: its info becomes empty (dirty: the caller persists it with the entries
 *  it cleared), its handles are closed, and it is queued for blockstore_unlink_pruned. The
 *  last file (being written) is never pruned. Readers already past their position check
 *  fail with RC_IO; later ones are refused by the caller's HAVE_DATA check. */
void blockstore_prune_file(struct blockstore *bs, int n);
/* Told of each file pair deleted (n: its number). */
typedef void (*blockstore_unlink_fn)(void *ctx, int n);
/** Deletes the queued files, blk and rev (call after the block index that no longer refers
 *  to them is on disk). log, if given, is called for each pair of which a file existed.
 *  Returns how many such pairs. */
int blockstore_unlink_pruned(struct blockstore *bs, blockstore_unlink_fn log, void *ctx);
/** Start-up after a crash between the block index write and the unlink (or a file still
 *  open when it was pruned): deletes the files of every empty info but the last (Core's
 *  ScanAndUnlinkAlreadyPrunedFiles). Returns how many pairs; log as above. */
int blockstore_unlink_already_pruned(struct blockstore *bs, blockstore_unlink_fn log, void *ctx);

/** -reindex of a pruned node (Core's CleanupBlockRevFiles): deletes every rev file of dir,
 *  and the blk files after the first gap in the numbers from 0 (they cannot be read again
 *  in order; their blocks are downloaded). Returns 0 or RC_IO. */
int blockstore_cleanup_for_reindex(const char *dir);

/* ---- The XOR key (Core's -blocksxor; doc/files.md, "The XOR key") ---- */

/** Core's InitBlocksdirXorKey: the key of the block files in dir, at start-up before
 *  anything else is written there. An existing dir/xor.dat wins (its first 8 bytes); else
 *  it is created (exclusively, synced) with a random key when use_xor (-blocksxor) and dir
 *  holds nothing but hidden files (a new blocks directory), with zeros otherwise (a blocks
 *  directory of files written as they are). Logs Core's "Using obfuscation key ..." line.
 *  Returns 0 with key filled; RC_INVALID with Core's message in err when use_xor is 0 and
 *  the stored key is not zeros; RC_CORRUPT for an xor.dat shorter than 8 bytes; RC_IO. */
int blockstore_init_xor_key(const char *dir, int use_xor, uint8_t key[OBFUSCATION_KEY_SIZE],
                            char *err, size_t err_len);
/** Reads the first 8 bytes of dir/xor.dat into key. Returns 0; RC_NOT_FOUND if there is no
 *  such file; RC_CORRUPT if it is shorter (message in err); RC_IO. */
int blockstore_read_xor_key(const char *dir, uint8_t key[OBFUSCATION_KEY_SIZE], char *err,
                            size_t err_len);
/** Every blk and rev byte bs writes from now on, and reads, is XORed with key cycled by its
 *  offset in the file (set once, after blockstore_open, before any write). Zeros by default. */
void blockstore_set_xor_key(struct blockstore *bs, const uint8_t key[OBFUSCATION_KEY_SIZE]);
/** The key in use (borrowed; for readers of the files outside bs: the block reader, a
 *  reindex). */
const struct obfuscation *blockstore_obfuscation(const struct blockstore *bs);

/** Test hook: roll blk files over at max_bytes instead of 128 MiB. */
void blockstore_set_max_file_size(struct blockstore *bs, uint32_t max_bytes);

/** Test hook: the n-th write from now fails (n = 1: the next one). With err != 0 it fails
 *  with that errno (e.g. ENOSPC) before writing; with err == 0 it writes half and reports a
 *  short write. n = 0 turns the hook off. */
void blockstore_inject_fault(struct blockstore *bs, int n, int err);

#endif
