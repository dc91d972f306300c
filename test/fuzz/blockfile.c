/* Fuzz target: block-file import (-loadblock, -reindex): a blk file's bytes, records of
 * magic || size || block with anything between them, through the reader the importer uses
 * (blockstore/blockfile.h) and each record through the importer's header and block parsers.
 * The first byte picks regtest's or mainnet's magic (bit 0) and, with bit 1, an obfuscated
 * file (the node's own blocks under -blocksxor) whose 8-byte key is the next 8 bytes; the
 * rest is the file.
 *
 * Nothing may crash, leak or read out of bounds. Every record lies inside the file, just
 * after its 8-byte frame, with a size in [80, 4,000,000]; the reader's counters agree with
 * the records returned; a record read again by its position is the same bytes; the sniffed
 * magic is the first non-zero bytes of the plain file.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in files.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockfile.h"
#include "consensus/params.h"
#include "primitives/block.h"
#include "util/buf.h"
#include "util/obfuscation.h"
#include "util/xmalloc.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_record(struct blockfile *bf, const struct blockfile_record *rec,
                         uint64_t file_size)
{
    if (rec->len < BLOCKFILE_MIN_RECORD || rec->len > BLOCKFILE_MAX_RECORD ||
        rec->offset < 8 || rec->offset + rec->len > file_size) {
        fprintf(stderr, "record at %llu of %zu bytes is out of bounds\n",
                (unsigned long long)rec->offset, rec->len);
        abort();
    }
    /* What the importer does with it: the header first, then the whole block. */
    struct block_header h;
    struct reader r;
    reader_init(&r, rec->data, rec->len);
    if (block_header_parse(&h, &r) != 0) {
        abort(); /* 80 bytes at least: a header always parses */
    }
    struct block b;
    char err[256] = "";
    if (block_parse(&b, rec->data, rec->len, err, sizeof(err)) == 0) {
        block_clear(&b);
    } else if (!err[0]) {
        abort();
    }
    uint8_t *copy = xmemdup(rec->data, rec->len);
    struct blockfile_record again;
    if (blockfile_read_at(bf, rec->offset, rec->len, &again) != 0 || again.len != rec->len ||
        memcmp(again.data, copy, rec->len) != 0) {
        fprintf(stderr, "record at %llu reads back differently\n", (unsigned long long)rec->offset);
        abort();
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const struct chain_params *p = chain_params_get((data[0] & 1) ? "main" : "regtest");
    int obfuscated = (data[0] & 2) && size >= 9;
    struct obfuscation obf;
    size_t skip = 1;
    if (obfuscated) {
        obfuscation_init(&obf, data + 1);
        skip = 9;
    }
    char path[600];
    fuzz_write_file(path, sizeof(path), "blk00000.dat", data + skip, size - skip);
    struct blockfile *bf;
    char err[256];
    int rc = obfuscated ? blockfile_open_obfuscated(&bf, path, p->magic, &obf, err, sizeof(err))
                        : blockfile_open(&bf, path, p->magic, err, sizeof(err));
    if (rc != 0) {
        return 0; /* an empty file cannot be mapped: the importer logs and skips it */
    }
    uint64_t file_size = blockfile_size(bf);
    if (file_size != size - skip) {
        abort();
    }
    struct blockfile_record rec;
    uint64_t n = 0;
    while (blockfile_next(bf, &rec) == 1) {
        check_record(bf, &rec, file_size);
        n++;
    }
    struct blockfile_stats st;
    blockfile_get_stats(bf, &st);
    if (st.records != n || st.garbage_bytes > st.skipped_bytes || st.skipped_bytes > file_size) {
        fprintf(stderr, "counters disagree: %llu records, %llu returned\n",
                (unsigned long long)st.records, (unsigned long long)n);
        abort();
    }
    blockfile_rewind(bf);
    if (n && blockfile_next(bf, &rec) != 1) {
        abort();
    }
    blockfile_close(bf);
    uint8_t m[4];
    if (!obfuscated && blockfile_sniff_magic(path, NULL, m, err, sizeof(err)) == 0) {
        const uint8_t *q = data + skip;
        size_t left = size - skip;
        while (left && *q == 0) {
            q++, left--;
        }
        if (left < 4 || memcmp(m, q, 4) != 0) {
            abort();
        }
    }
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    /* Padding, a record of 80 bytes, garbage, a bad size, a truncated record. */
    uint8_t f[1 + 16 + 88 + 3 + 8 + 12];
    memset(f, 0, sizeof(f));
    const uint8_t *m = chain_params_get("regtest")->magic;
    uint8_t *q = f + 1 + 16;
    memcpy(q, m, 4);
    q[4] = 80;
    q += 88;
    memcpy(q, "xyz", 3);
    q += 3;
    memcpy(q, m, 4);
    q[7] = 0xff;
    q += 8;
    memcpy(q, m, 4);
    q[4] = 90;
    for (size_t n = 0; n <= sizeof(f); n++) {
        LLVMFuzzerTestOneInput(f, n);
        f[0] = 2;
        LLVMFuzzerTestOneInput(f, n);
        f[0] = 0;
        count += 2;
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
