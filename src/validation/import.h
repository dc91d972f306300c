/* Importing block files (-loadblock, -reindex): every framed record is offered to the
 * chainstate; a block whose parent is not known yet is held - by its position in the file,
 * not its bytes, so memory stays bounded - and offered again when the parent arrives, in the
 * same file or a later one. (Bitcoin Core holds such blocks only for -reindex; block files
 * copied from another node are in arrival order, so -loadblock must hold them too.)
 */
#ifndef BITNODE_VALIDATION_IMPORT_H
#define BITNODE_VALIDATION_IMPORT_H

#include <stdint.h>

#include "validation/chainstate.h"
#include "validation/validator.h"

struct import_stats {
    uint64_t records;  /* framed records found */
    uint64_t accepted; /* new blocks stored */
    uint64_t known;    /* already stored */
    uint64_t invalid;  /* rejected when read, or when connected (both logged with the reason) */
    uint64_t held;     /* waited for their parent at some point */
    uint64_t orphans;  /* still without a parent at the end */
};

struct importer;

/** A new importer handing its blocks to v's validation thread (borrowed); it runs on the
 *  caller's thread (bitnoded's import thread), reading files and looking blocks up under
 *  the chain's read lock. reindex: the files are this node's own blocks/blk*.dat, so blocks
 *  are recorded where they already are instead of being copied. */
struct importer *importer_new(struct validator *v, int reindex);
/** Waits for the blocks still in flight, then frees im. */
void importer_free(struct importer *im);

/** Imports one file (its records stay mapped while blocks from it are held). It reads the
 *  file's headers first (chainstate_accept_header), then its blocks: every block is checked
 *  as far as it can be without the UTXO set and stored, and blocks are connected as they
 *  come, along the best header chain only, so a branch that loses within the file is stored
 *  but never connected (the end state of Bitcoin Core's import, which connects after the
 *  files). Up to 8 blocks are in flight to the validation thread, which accepts the next
 *  one while the pool checks the one before (validator.h). A branch of this file beaten by a later
 *  file may have been connected meanwhile; importer_finish reorganizes to the best chain.
 *  For reindex, file_number is the blk file's number.
 *  Returns 0 (bad records are logged and skipped), RC_NOT_FOUND for a file that cannot be
 *  opened (logged), or a system error of the node's own storage (RC_IO for a disk that is
 *  full or failing), which must stop the node. */
int importer_add_file(struct importer *im, const char *path, int file_number);

/** Finishes: connects the best chain, flushes the chainstate (FLUSH_ALWAYS: blocks, block
 *  index, coins and txindex on disk), logs blocks whose parent never came, then the summary
 *  line ("import: N records, ...").
 *  Returns 0 or a system error. Out: stats (may be NULL). */
int importer_finish(struct importer *im, struct import_stats *stats);

/** The import's own reading failure (a block file that cannot be read, or shrank while it
 *  was read: its path, offset and the system error), "" when there was none. */
const char *importer_error(const struct importer *im);

/** 1 if a shutdown was requested while importing (checked between blocks). */
typedef int (*import_interrupt_fn)(void);
void importer_set_interrupt(struct importer *im, import_interrupt_fn fn);

#endif
