/* The block index database (blocks/index): block index entries, block-file infos, and
 * flags. Records (doc/files.md, "Block index"):
 *
 *   'b' hash[32]   -> varint(version) varint(height) varint(status) varint(tx_count)
 *                     [varint(file) if status & (HAVE_DATA|HAVE_UNDO)]
 *                     [varint(data_pos) if HAVE_DATA] [varint(undo_pos) if HAVE_UNDO]
 *                     header[80]                      (Core's CDiskBlockIndex layout)
 *   'f' i32le(n)   -> blockfile_info (seven varints, Core's CBlockFileInfo)
 *   'l'            -> i32le last file number
 *   'R'            -> u8 1 while a reindex is in progress (absent otherwise)
 *   'P'            -> u8 1 once a blk/rev file was pruned (Core's "prunedblockfiles" flag:
 *                     the datadir can no longer run unpruned without a -reindex)
 */
#ifndef BITNODE_BLOCKSTORE_INDEXDB_H
#define BITNODE_BLOCKSTORE_INDEXDB_H

#include "blockstore/blockindex.h"
#include "blockstore/blockstore.h"
#include "kv/kv.h"

#define INDEXDB_VERSION 2
/* Records of version 1 were written before BLOCK_OPT_WITNESS was kept: each block with data
 * was checked by the rules of its chain then, so it is read with the flag. */
#define INDEXDB_VERSION_NO_OPT_WITNESS 1

/** Loads every 'b' record of kv into t (which must be empty), linking parents. Entries whose
 *  parent is missing are corruption; a record of another version than INDEXDB_VERSION (or
 *  INDEXDB_VERSION_NO_OPT_WITNESS, upgraded as it is read) is Bitcoin Core's (the same layout with its client version) and refused, saying so.
 *  Returns 0, RC_CORRUPT or RC_FOREIGN (Core's) with the message in err, or a store error. */
int indexdb_load_tree(struct kv *kv, struct block_tree *t, char *err, size_t err_len);

/** Loads the block-file infos: *infos is a new array of *n entries (caller frees), empty
 *  when there are none. */
int indexdb_load_files(struct kv *kv, struct blockfile_info **infos, int *n);

/** Adds the record of e to batch b. */
void indexdb_put_entry(struct kv_batch *b, const struct block_index *e);
/** Adds the record of file info n to b, and the last-file marker. */
void indexdb_put_file(struct kv_batch *b, int n, const struct blockfile_info *info, int last);

/** Reads / sets / clears the reindex-in-progress flag. */
int indexdb_get_reindexing(struct kv *kv, int *reindexing);
int indexdb_set_reindexing(struct kv *kv, int reindexing);

/** Reads the pruned flag ('P'): *pruned 1 if set. Returns 0 or a store error. */
int indexdb_get_pruned(struct kv *kv, int *pruned);
/** Adds the pruned flag to b. */
void indexdb_put_pruned(struct kv_batch *b);

#endif
