/* Reading block files in the -loadblock format: records of
 *     magic[4] || size (uint32 little-endian) || block[size]
 * with anything between records (zero padding from pre-allocation, garbage) skipped the way
 * Bitcoin Core's importer does it: scan forward to the next occurrence of the network magic,
 * accept a size in [80, 4,000,000], take that many bytes as one record. Format:
 * doc/files.md, "Block files".
 *
 * The file is read with pread, a 1 MiB chunk at a time, into memory of its own as the reading
 * gets to it (never memory-mapped: a file that shrinks under the reader, or a disk that fails
 * a read, would kill the process with SIGBUS; here the read fails, and the file ends there
 * with read_error in the stats). Records are borrowed views into that memory, valid until
 * blockfile_close (see blockfile_keep_from).
 *
 * A file of the node's own blocks directory is XORed with the key of blocks/xor.dat (Core's
 * -blocksxor; doc/files.md, "The XOR key"): opened with blockfile_open_obfuscated, its chunks
 * are turned back as they are read. -loadblock files are never obfuscated (Core reads them
 * as they are). Records are returned as found: whether the bytes are a valid block is for
 * the caller to decide (Core skips the record's bytes either way).
 */
#ifndef BITNODE_BLOCKSTORE_BLOCKFILE_H
#define BITNODE_BLOCKSTORE_BLOCKFILE_H

#include <stddef.h>
#include <stdint.h>

/* Core's MAX_BLOCK_SERIALIZED_SIZE: a framed record larger than this is not a block. */
#define BLOCKFILE_MAX_RECORD 4000000u
#define BLOCKFILE_MIN_RECORD 80u

struct blockfile;

struct blockfile_record {
    const uint8_t *data; /* borrowed from the reader's memory */
    size_t len;
    uint64_t offset; /* file offset of data (just past the 8-byte frame) */
};

struct blockfile_stats {
    uint64_t records;       /* records returned so far */
    uint64_t skipped_bytes; /* bytes passed over looking for a magic (padding, garbage) */
    uint64_t garbage_bytes; /* of which not zero (zeros are pre-allocation padding) */
    uint64_t first_garbage_at;   /* offset of the first of them */
    uint64_t bad_frames;         /* magic found but the size was out of range */
    uint64_t first_bad_frame_at; /* offset of the first such magic */
    int truncated_tail;     /* 1 if the file ended inside a record (its bytes are not returned) */
    uint64_t truncated_at;  /* offset of that record's magic */
    int read_error;         /* errno of a failed read (EIO: the file shrank under the reader);
                               the file ends there for blockfile_next */
    uint64_t read_error_at; /* the offset it failed at */
};

/** Opens path for reading records framed with magic.
 *
 *  Returns: 0 with *out set (caller frees with blockfile_close); RC_IO with a message in err
 *           (may be NULL) naming the file and the system error.
 *  In:      magic4: the network's message start bytes; copied.
 */
int blockfile_open(struct blockfile **out, const char *path, const uint8_t magic4[4], char *err,
                   size_t err_len);

struct obfuscation;
/** blockfile_open for a file XORed with obf's key (NULL or a key of zeros: a plain file,
 *  as blockfile_open). */
int blockfile_open_obfuscated(struct blockfile **out, const char *path, const uint8_t magic4[4],
                              const struct obfuscation *obf, char *err, size_t err_len);

/** Finds the next record at or after the current position.
 *
 *  Returns: 1 with *rec filled; 0 at the end of the file (including a truncated last
 *           record, reported in the stats).
 */
int blockfile_next(struct blockfile *bf, struct blockfile_record *rec);

/** Borrows the record whose data starts at offset and is len bytes (a position remembered
 *  from an earlier blockfile_next, e.g. a block held until its parent arrives).
 *  Returns 0, RC_INVALID if the range is outside the file, or RC_IO when reading it
 *  failed (read_error in the stats). */
int blockfile_read_at(struct blockfile *bf, uint64_t offset, size_t len,
                      struct blockfile_record *rec);

/** Size of the file in bytes. */
uint64_t blockfile_size(const struct blockfile *bf);
/** Counters so far. */
void blockfile_get_stats(const struct blockfile *bf, struct blockfile_stats *stats);
/** Rewinds to the start of the file (stats are kept). */
void blockfile_rewind(struct blockfile *bf);

/** Looks at the first 4 non-zero bytes of the file (turned back with obf's key, NULL: none)
 *  and copies them into magic4. Returns 0, RC_NOT_FOUND if the file is empty or all zero,
 *  or RC_IO. */
int blockfile_sniff_magic(const char *path, const struct obfuscation *obf, uint8_t magic4[4],
                          char *err, size_t err_len);

/** Bytes from offset on are still in use by the caller (records handed to other threads):
 *  blockfile_next, which gives back the pages it has read past, leaves them. Pages given
 *  back are gone (read again when wanted by blockfile_read_at); so a caller that keeps
 *  records past the next few calls says so here. UINT64_MAX (the default): nothing is held. */
void blockfile_keep_from(struct blockfile *bf, uint64_t offset);
/** Gives back every page below the keep_from offset (the file read through): a held record
 *  is read again by blockfile_read_at. */
void blockfile_release(struct blockfile *bf);

/** Frees the reader's memory and closes (NULL is a no-op). */
void blockfile_close(struct blockfile *bf);

#endif
