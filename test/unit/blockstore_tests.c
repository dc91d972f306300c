/* Block and undo files (src/blockstore/blockstore.c, undo.c): the regtest chain written
 * across several files and read back byte for byte, the files readable as -loadblock input,
 * undo records with their checksum, reopening, and injected disk-full and short writes that
 * must lose nothing. */
#include "test.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockstore/blockfile.h"
#include "blockstore/blockstore.h"
#include "blockstore/indexdb.h"
#include "coins/undo.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "util/hex.h"
#include "util/obfuscation.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const uint8_t MAGIC[4] = {0xfa, 0xbf, 0xb5, 0xda};
static char dir[256];

static void rm_dir(void)
{
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

struct rec {
    const uint8_t *data;
    size_t len;
    int file;
    uint32_t pos;
};

static uint8_t *chain;
static size_t chain_len;
static struct rec recs[1400];
static int nrecs;

static void load_chain(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    chain = test_read_file(path, &chain_len);
    if (!chain) {
        printf("Bail out! cannot read %s\n", path);
        exit(1);
    }
    size_t pos = 0;
    while (pos + 8 <= chain_len && memcmp(chain + pos, MAGIC, 4) == 0) {
        uint32_t len = rd_u32le(chain + pos + 4);
        recs[nrecs].data = chain + pos + 8;
        recs[nrecs].len = len;
        nrecs++;
        pos += 8 + len;
    }
}

static void test_write_read_roll(void)
{
    struct blockstore *bs = NULL;
    char err[512];
    struct buf b;
    buf_init(&b);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, NULL, 0, err, sizeof(err)), RC_OK);
    blockstore_set_max_file_size(bs, 1 << 20);
    for (int i = 0; i < nrecs; i++) {
        CHECK_EQ_INT(blockstore_append_block(bs, recs[i].data, recs[i].len, (uint32_t)i,
                                             1000 + (uint64_t)i, &recs[i].file, &recs[i].pos),
                     RC_OK);
    }
    CHECK_EQ_INT(blockstore_sync(bs), RC_OK);
    int nf = blockstore_file_count(bs);
    CHECK(nf >= 3);
    uint32_t blocks = 0;
    for (int f = 0; f < nf; f++) {
        const struct blockfile_info *info = blockstore_file_info(bs, f);
        CHECK(info->size <= 1 << 20);
        blocks += info->blocks;
        if (f > 0) {
            CHECK_EQ_INT(info->height_first, blockstore_file_info(bs, f - 1)->height_last + 1);
        }
    }
    CHECK_EQ_INT(blocks, nrecs);
    int bad = 0;
    for (int i = 0; i < nrecs; i++) {
        bad += blockstore_read_block(bs, recs[i].file, recs[i].pos, &b) != RC_OK ||
               b.len != recs[i].len || memcmp(b.data, recs[i].data, b.len) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    /* A position that is not a record start. */
    CHECK_EQ_INT(blockstore_read_block(bs, recs[5].file, recs[5].pos + 1, &b), RC_CORRUPT);
    CHECK_EQ_INT(blockstore_read_block(bs, 99, 8, &b), RC_CORRUPT);
    int dirty[64];
    uint32_t sizes[64];
    CHECK(nf <= 64);
    CHECK_EQ_INT(blockstore_take_dirty_files(bs, dirty, 64), nf);
    CHECK_EQ_INT(blockstore_take_dirty_files(bs, dirty, 64), 0);
    for (int f = 0; f < nf && f < 64; f++) {
        sizes[f] = blockstore_file_info(bs, f)->size;
    }
    blockstore_close(bs);

    /* Our blk files are -loadblock input: the importer's reader finds every block in order
     * (finished files were truncated; the current one keeps its zero-filled tail). */
    int seen = 0;
    for (int f = 0; f < nf; f++) {
        char path[4200];
        struct blockfile *r = NULL;
        struct blockfile_record rec;
        snprintf(path, sizeof(path), "%s/blk%05d.dat", dir, f);
        CHECK_EQ_INT(blockfile_open(&r, path, MAGIC, err, sizeof(err)), RC_OK);
        while (r && blockfile_next(r, &rec) == 1) {
            bad += seen >= nrecs || rec.len != recs[seen].len ||
                   memcmp(rec.data, recs[seen].data, rec.len) != 0;
            seen++;
        }
        struct stat st;
        stat(path, &st);
        if (f < nf - 1) {
            CHECK_EQ_INT(st.st_size, sizes[f]); /* finished files are cut to their data */
        } else {
            CHECK_EQ_INT(st.st_size % BLOCKSTORE_BLK_CHUNK, 0);
        }
        blockfile_close(r);
    }
    CHECK_EQ_INT(seen, nrecs);
    CHECK_EQ_INT(bad, 0);
    buf_clear(&b);
}

static void make_undo(struct block_undo *u, int seed)
{
    struct tx_undo *t = block_undo_resize(u, 3);
    for (int i = 0; i < 3; i++) {
        t[i].n = (size_t)(i + 1);
        t[i].prev = xcalloc(t[i].n, sizeof(struct coin));
        for (size_t j = 0; j < t[i].n; j++) {
            struct coin *c = &t[i].prev[j];
            c->height = (uint32_t)(seed * 10 + i) * (j != 0); /* some height 0: no version byte */
            c->coinbase = (int)(j & 1);
            c->value_sat = 1000 * (seed + 1) + (int64_t)j;
            c->script_pubkey.len = 22;
            c->script_pubkey.data = xmalloc(22);
            memset(c->script_pubkey.data, seed + (int)j, 22);
            c->script_pubkey.data[0] = 0x00;
            c->script_pubkey.data[1] = 0x14;
        }
    }
}

static void test_undo_records(void)
{
    struct blockstore *bs = NULL;
    struct block_undo u, back;
    struct buf ser, got;
    char err[512];
    uint8_t prev[32] = {1, 2, 3};
    uint32_t pos[5];
    buf_init(&ser);
    buf_init(&got);
    block_undo_init(&u);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, NULL, 0, err, sizeof(err)), RC_OK);
    for (int k = 0; k < 5; k++) {
        make_undo(&u, k);
        buf_reset(&ser);
        block_undo_serialize(&ser, &u);
        prev[31] = (uint8_t)k;
        CHECK_EQ_INT(blockstore_append_undo(bs, 0, prev, ser.data, ser.len, &pos[k]), RC_OK);
    }
    for (int k = 0; k < 5; k++) {
        make_undo(&u, k);
        buf_reset(&ser);
        block_undo_serialize(&ser, &u);
        prev[31] = (uint8_t)k;
        CHECK_EQ_INT(blockstore_read_undo(bs, 0, pos[k], prev, &got), RC_OK);
        CHECK_EQ_INT(got.len, ser.len);
        CHECK_EQ_MEM(got.data, ser.data, ser.len);
        CHECK_EQ_INT(block_undo_parse(&back, got.data, got.len), RC_OK);
        CHECK_EQ_INT(back.n, 3);
        CHECK_EQ_INT(back.txs[2].n, 3);
        CHECK_EQ_INT(back.txs[2].prev[1].value_sat, 1000 * (k + 1) + 1);
        CHECK_EQ_INT(back.txs[2].prev[1].height, (uint32_t)(k * 10 + 2));
        CHECK_EQ_INT(back.txs[2].prev[1].coinbase, 1);
        CHECK_EQ_MEM(back.txs[2].prev[1].script_pubkey.data, u.txs[2].prev[1].script_pubkey.data,
                     22);
        block_undo_clear(&back);
        /* The checksum binds the record to its block's parent. */
        prev[0] ^= 1;
        CHECK_EQ_INT(blockstore_read_undo(bs, 0, pos[k], prev, &got), RC_CORRUPT);
        prev[0] ^= 1;
    }
    /* Truncations and trailing bytes of an undo record are corruption. */
    for (size_t i = 0; i < ser.len; i++) {
        CHECK_EQ_INT(block_undo_parse(&back, ser.data, i), RC_CORRUPT);
    }
    buf_put_u8(&ser, 0);
    CHECK_EQ_INT(block_undo_parse(&back, ser.data, ser.len), RC_CORRUPT);
    block_undo_clear(&u);
    blockstore_close(bs);

    /* A flipped byte on disk fails the checksum. */
    char path[4200];
    snprintf(path, sizeof(path), "%s/rev00000.dat", dir);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
        fseek(f, (long)pos[2] + 5, SEEK_SET);
        int c = fgetc(f);
        fseek(f, (long)pos[2] + 5, SEEK_SET);
        fputc(c ^ 0x40, f);
        fclose(f);
    }
    struct blockfile_info info = {.undo_size = pos[4] + 8 + 200};
    /* Reopen with the recorded size of the rev file (reads past it are refused). */
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, &info, 1, err, sizeof(err)), RC_OK);
    prev[31] = 2;
    CHECK_EQ_INT(blockstore_read_undo(bs, 0, pos[2], prev, &got), RC_CORRUPT);
    CHECK(strstr(blockstore_error(bs), "checksum") != NULL);
    blockstore_close(bs);
    buf_clear(&ser);
    buf_clear(&got);
}

static void test_faults_lose_nothing(void)
{
    struct blockstore *bs = NULL;
    struct buf b;
    char err[512];
    int file;
    uint32_t pos, pos2;
    buf_init(&b);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, NULL, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockstore_append_block(bs, recs[1].data, recs[1].len, 1, 1, &file, &pos), RC_OK);
    uint32_t size = blockstore_file_info(bs, 0)->size;

    /* Disk full on the frame. */
    blockstore_inject_fault(bs, 1, ENOSPC);
    CHECK_EQ_INT(blockstore_append_block(bs, recs[2].data, recs[2].len, 2, 2, &file, &pos2),
                 RC_IO);
    CHECK(strstr(blockstore_error(bs), "No space left") != NULL);
    CHECK_EQ_INT(blockstore_file_info(bs, 0)->size, size);
    CHECK_EQ_INT(blockstore_file_info(bs, 0)->blocks, 1);

    /* A short write of the block body, after the frame went through. */
    blockstore_inject_fault(bs, 2, 0);
    CHECK_EQ_INT(blockstore_append_block(bs, recs[2].data, recs[2].len, 2, 2, &file, &pos2),
                 RC_IO);
    CHECK(strstr(blockstore_error(bs), "short write") != NULL);
    CHECK_EQ_INT(blockstore_file_info(bs, 0)->size, size);

    /* The retry lands where the failed one began and everything reads back. */
    CHECK_EQ_INT(blockstore_append_block(bs, recs[2].data, recs[2].len, 2, 2, &file, &pos2),
                 RC_OK);
    CHECK_EQ_INT(pos2, size + 8);
    CHECK_EQ_INT(blockstore_read_block(bs, file, pos, &b), RC_OK);
    CHECK_EQ_MEM(b.data, recs[1].data, recs[1].len);
    CHECK_EQ_INT(blockstore_read_block(bs, file, pos2, &b), RC_OK);
    CHECK_EQ_MEM(b.data, recs[2].data, recs[2].len);

    /* Undo writes fail the same way. */
    uint8_t prev[32] = {0};
    uint32_t upos;
    uint32_t usize = blockstore_file_info(bs, 0)->undo_size;
    blockstore_inject_fault(bs, 3, ENOSPC);
    CHECK_EQ_INT(blockstore_append_undo(bs, 0, prev, (const uint8_t *)"\x00", 1, &upos), RC_IO);
    CHECK_EQ_INT(blockstore_file_info(bs, 0)->undo_size, usize);
    CHECK_EQ_INT(blockstore_append_undo(bs, 0, prev, (const uint8_t *)"\x00", 1, &upos), RC_OK);
    CHECK_EQ_INT(blockstore_read_undo(bs, 0, upos, prev, &b), RC_OK);
    CHECK_EQ_INT(b.len, 1);

    /* Close and reopen with the recorded info: appends continue after the data. */
    struct blockfile_info info = *blockstore_file_info(bs, 0);
    blockstore_close(bs);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, &info, 1, err, sizeof(err)), RC_OK);
    uint32_t pos3;
    CHECK_EQ_INT(blockstore_append_block(bs, recs[3].data, recs[3].len, 3, 3, &file, &pos3), RC_OK);
    CHECK_EQ_INT(pos3, info.size + 8);
    CHECK_EQ_INT(blockstore_read_block(bs, 0, pos2, &b), RC_OK);
    CHECK_EQ_MEM(b.data, recs[2].data, recs[2].len);
    blockstore_close(bs);
    buf_clear(&b);
}

static void test_file_info_encoding(void)
{
    struct blockfile_info a = {7, 123456, 7890, 100, 200, 1231006505, 1700000000}, b;
    struct buf s;
    buf_init(&s);
    blockfile_info_serialize(&s, &a);
    CHECK_EQ_INT(blockfile_info_parse(&b, s.data, s.len), RC_OK);
    CHECK_EQ_INT(b.blocks, a.blocks);
    CHECK_EQ_INT(b.size, a.size);
    CHECK_EQ_INT(b.undo_size, a.undo_size);
    CHECK_EQ_INT(b.height_first, a.height_first);
    CHECK_EQ_INT(b.height_last, a.height_last);
    CHECK_EQ_U64(b.time_first, a.time_first);
    CHECK_EQ_U64(b.time_last, a.time_last);
    CHECK_EQ_INT(blockfile_info_parse(&b, s.data, s.len - 1), RC_CORRUPT);
    buf_put_u8(&s, 0);
    CHECK_EQ_INT(blockfile_info_parse(&b, s.data, s.len), RC_CORRUPT);
    buf_clear(&s);
}

static int file_exists(int n, int undo)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/%s%05d.dat", dir, undo ? "rev" : "blk", n);
    return access(path, F_OK) == 0;
}

static void count_unlinked(void *ctx, int n)
{
    (void)n;
    (*(int *)ctx)++;
}

/* Pruning (Core's PruneOneBlockFile and UnlinkPrunedFiles): -fastprune's 64 KiB files, a
 * pruned file's info emptied and its blocks unreadable without the file coming back, the
 * usage going down by what it held, the file being written never pruned, the files deleted
 * only when asked, and start-up's clean-up of files whose pruning was cut short. */
static void test_prune_files(void)
{
    struct blockstore *bs = NULL;
    char err[512];
    struct buf b;
    buf_init(&b);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, NULL, 0, err, sizeof(err)), RC_OK);
    blockstore_set_fast_prune(bs);
    uint8_t undo[100] = {1, 2, 3}, prev[32] = {0};
    for (int i = 0; i < nrecs; i++) {
        uint32_t upos;
        CHECK_EQ_INT(blockstore_append_block(bs, recs[i].data, recs[i].len, (uint32_t)i,
                                             1000 + (uint64_t)i, &recs[i].file, &recs[i].pos),
                     RC_OK);
        CHECK_EQ_INT(blockstore_append_undo(bs, recs[i].file, prev, undo, sizeof(undo), &upos),
                     RC_OK);
    }
    CHECK_EQ_INT(blockstore_sync(bs), RC_OK);
    int nf = blockstore_file_count(bs);
    CHECK(nf > 20);
    for (int f = 0; f < nf; f++) {
        CHECK(blockstore_file_info(bs, f)->size < BLOCKSTORE_FAST_PRUNE_FILE_SIZE);
    }
    /* A finished rev file gave back its preallocated tail at the sync. */
    struct stat st;
    char path[4300];
    snprintf(path, sizeof(path), "%s/rev00000.dat", dir);
    CHECK_EQ_INT(stat(path, &st), 0);
    CHECK_EQ_INT((int64_t)st.st_size, (int64_t)blockstore_file_info(bs, 0)->undo_size);
    uint64_t usage = blockstore_usage(bs);
    const struct blockfile_info *i0 = blockstore_file_info(bs, 0);
    uint64_t held = (uint64_t)i0->size + i0->undo_size;
    CHECK(blockstore_take_check_for_pruning(bs));
    CHECK(!blockstore_take_check_for_pruning(bs));

    int dirty[256];
    (void)blockstore_take_dirty_files(bs, dirty, 256);
    blockstore_prune_file(bs, 0);
    blockstore_prune_file(bs, 1);
    blockstore_prune_file(bs, nf - 1); /* the file being written: refused */
    CHECK_EQ_INT(blockstore_take_dirty_files(bs, dirty, 256), 2);
    CHECK_EQ_INT(blockstore_file_info(bs, 0)->size, 0);
    CHECK_EQ_INT(blockstore_file_info(bs, 0)->blocks, 0);
    CHECK(blockstore_file_info(bs, nf - 1)->size > 0);
    CHECK(blockstore_usage(bs) < usage - held);
    /* Not deleted yet: the caller writes the block index first. */
    CHECK(file_exists(0, 0) && file_exists(0, 1));
    int logged = 0;
    CHECK_EQ_INT(blockstore_unlink_pruned(bs, count_unlinked, &logged), 2);
    CHECK_EQ_INT(logged, 2);
    CHECK(!file_exists(0, 0) && !file_exists(0, 1) && !file_exists(1, 0));
    CHECK(file_exists(2, 0));
    /* A read of a pruned block fails and does not create the file again. */
    CHECK(blockstore_read_block(bs, recs[0].file, recs[0].pos, &b) != RC_OK);
    CHECK(!file_exists(0, 0));
    CHECK_EQ_INT(blockstore_read_block(bs, recs[nrecs - 1].file, recs[nrecs - 1].pos, &b), RC_OK);
    CHECK_EQ_INT(blockstore_unlink_pruned(bs, NULL, NULL), 0); /* the queue is empty */

    /* Cut short: file 2's info is empty in the index but the files are still there. */
    struct blockfile_info infos[256];
    CHECK(nf <= 256);
    for (int f = 0; f < nf; f++) {
        infos[f] = *blockstore_file_info(bs, f);
    }
    memset(&infos[2], 0, sizeof(infos[2]));
    blockstore_close(bs);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, infos, nf, err, sizeof(err)), RC_OK);
    logged = 0;
    CHECK_EQ_INT(blockstore_unlink_already_pruned(bs, count_unlinked, &logged), 1);
    CHECK_EQ_INT(logged, 1);
    CHECK(!file_exists(2, 0) && !file_exists(2, 1) && file_exists(3, 0));
    CHECK_EQ_INT(blockstore_unlink_already_pruned(bs, NULL, NULL), 0);
    blockstore_close(bs);

    /* -reindex of a pruned node: no rev files, and no blk file after the first gap (here
     * every one: blk00000.dat is gone). */
    CHECK_EQ_INT(blockstore_cleanup_for_reindex(dir), RC_OK);
    for (int f = 0; f < nf; f++) {
        CHECK(!file_exists(f, 0) && !file_exists(f, 1));
    }
    buf_clear(&b);
}

/* The reindex clean-up keeps blk files contiguous from 0. */
static void test_cleanup_for_reindex(void)
{
    CHECK_EQ_INT(mkdir(dir, 0700), 0);
    const char *names[] = {"blk00000.dat", "blk00001.dat", "blk00003.dat", "rev00000.dat",
                           "rev00003.dat", "other.dat", "blk0000x.dat"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[4300];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fclose(f);
        }
    }
    CHECK_EQ_INT(blockstore_cleanup_for_reindex(dir), RC_OK);
    CHECK(file_exists(0, 0) && file_exists(1, 0) && !file_exists(3, 0));
    CHECK(!file_exists(0, 1) && !file_exists(3, 1));
    char path[4300];
    snprintf(path, sizeof(path), "%s/other.dat", dir);
    CHECK_EQ_INT(access(path, F_OK), 0);
    snprintf(path, sizeof(path), "%s/blk0000x.dat", dir);
    CHECK_EQ_INT(access(path, F_OK), 0);
}

/* Core's Obfuscation: word-wise XOR equals the byte-wise definition (byte at file offset o
 * XORed with key[o % 8]) at every offset, length and alignment, and twice is nothing. */
static void test_xor_roundtrip(void)
{
    static const uint8_t key[8] = {0x34, 0x46, 0x6b, 0xfa, 0xdc, 0x69, 0x78, 0x22};
    struct obfuscation o;
    obfuscation_init(&o, key);
    CHECK(o.on);
    uint8_t src[200], buf[210], want[200];
    for (size_t i = 0; i < sizeof(src); i++) {
        src[i] = (uint8_t)(i * 7 + 3);
    }
    int bad = 0;
    for (uint64_t off = 0; off < 19; off++) {
        for (size_t align = 0; align < 8; align++) {
            for (size_t len = 0; len <= 150; len += (len < 20 ? 1 : 13)) {
                for (size_t i = 0; i < len; i++) {
                    want[i] = src[i] ^ key[(off + i) % 8];
                }
                memcpy(buf + align, src, len);
                obfuscation_apply(&o, buf + align, len, off);
                bad += memcmp(buf + align, want, len) != 0;
                obfuscation_apply(&o, buf + align, len, off);
                bad += memcmp(buf + align, src, len) != 0;
                uint8_t out[210];
                obfuscation_copy(&o, out + (align ^ 3), src, len, off);
                bad += memcmp(out + (align ^ 3), want, len) != 0;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* A large offset (a file past 4 GiB) keeps the phase. */
    memcpy(buf, src, 16);
    obfuscation_apply(&o, buf, 16, ((uint64_t)1 << 33) + 5);
    for (size_t i = 0; i < 16; i++) {
        bad += buf[i] != (src[i] ^ key[(5 + i) % 8]);
    }
    CHECK_EQ_INT(bad, 0);
    static const uint8_t zero[8];
    obfuscation_init(&o, zero);
    CHECK(!o.on);
    memcpy(buf, src, 50);
    obfuscation_apply(&o, buf, 50, 3);
    CHECK(memcmp(buf, src, 50) == 0);
}

static void write_file(const char *name, const void *p, size_t len)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(p, 1, len, f);
        fclose(f);
    }
}

/* Core's InitBlocksdirXorKey: a random key for a new blocks directory (hidden files only),
 * zeros for one that holds files or with -blocksxor=0, a stored key wins, and a stored key
 * that is not zeros refuses -blocksxor=0 with Core's words. */
static void test_xor_key_file(void)
{
    static const uint8_t zero[8];
    uint8_t key[8], again[8];
    char err[512], path[4300];
    snprintf(path, sizeof(path), "%s/xor.dat", dir);
    CHECK_EQ_INT(mkdir(dir, 0700), 0);
    write_file(".lock", "", 0);
    CHECK_EQ_INT(blockstore_read_xor_key(dir, key, err, sizeof(err)), RC_NOT_FOUND);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 1, key, err, sizeof(err)), RC_OK);
    CHECK(memcmp(key, zero, 8) != 0);
    struct stat st;
    CHECK_EQ_INT(stat(path, &st), 0);
    CHECK_EQ_INT(st.st_size, 8);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 1, again, err, sizeof(err)), RC_OK);
    CHECK(memcmp(key, again, 8) == 0);
    CHECK_EQ_INT(blockstore_read_xor_key(dir, again, err, sizeof(err)), RC_OK);
    CHECK(memcmp(key, again, 8) == 0);
    /* -blocksxor=0 with the random key stored. */
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 0, again, err, sizeof(err)), RC_INVALID);
    char hex[17], want[4600];
    hex_encode(hex, key, 8);
    snprintf(want, sizeof(want),
             "The blocksdir XOR-key can not be disabled when a random key was already stored! "
             "Stored key: '%s', stored path: '%s'.", hex, path);
    CHECK_EQ_STR(err, want);
    /* An existing blocks directory without a key: zeros, even with -blocksxor=1. */
    CHECK_EQ_INT(unlink(path), 0);
    write_file("blk00000.dat", "x", 1);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 1, key, err, sizeof(err)), RC_OK);
    CHECK(memcmp(key, zero, 8) == 0);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 0, key, err, sizeof(err)), RC_OK);
    /* -blocksxor=0 on a new one: zeros. */
    CHECK_EQ_INT(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/blk00000.dat", dir);
    CHECK_EQ_INT(unlink(path), 0);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 0, key, err, sizeof(err)), RC_OK);
    CHECK(memcmp(key, zero, 8) == 0);
    /* A key file cut short is an error, not a key. */
    write_file("xor.dat", "\x01\x02\x03", 3);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 1, key, err, sizeof(err)), RC_CORRUPT);
    CHECK(strstr(err, "holds 3 bytes") != NULL);
    /* A longer one: its first 8 bytes, as Core reads it. */
    write_file("xor.dat", "\x01\x02\x03\x04\x05\x06\x07\x08\x09", 9);
    CHECK_EQ_INT(blockstore_init_xor_key(dir, 1, key, err, sizeof(err)), RC_OK);
    CHECK(memcmp(key, "\x01\x02\x03\x04\x05\x06\x07\x08", 8) == 0);
}

/* Files written under a key: every byte on disk is the plain byte XORed with the key at its
 * offset; the store, the -reindex reader (across its 1 MiB chunks, after it gave pages
 * back) and the undo records read them back. */
static void test_xor_store(void)
{
    static const uint8_t key[8] = {0x9a, 0x01, 0xfe, 0x55, 0x00, 0x7c, 0x11, 0xe3};
    struct obfuscation o;
    obfuscation_init(&o, key);
    struct blockstore *bs = NULL;
    char err[512], path[4300];
    struct buf b;
    buf_init(&b);
    CHECK_EQ_INT(blockstore_open(&bs, dir, MAGIC, NULL, 0, err, sizeof(err)), RC_OK);
    blockstore_set_xor_key(bs, key);
    blockstore_set_max_file_size(bs, 3 << 20); /* records cross the reader's chunks */
    for (int i = 0; i < nrecs; i++) {
        CHECK_EQ_INT(blockstore_append_block(bs, recs[i].data, recs[i].len, (uint32_t)i,
                                             1000 + (uint64_t)i, &recs[i].file, &recs[i].pos),
                     RC_OK);
    }
    uint8_t prev[32] = {7};
    uint32_t upos;
    CHECK_EQ_INT(blockstore_append_undo(bs, 0, prev, (const uint8_t *)"undo bytes!", 11, &upos),
                 RC_OK);
    CHECK_EQ_INT(blockstore_sync(bs), RC_OK);
    int bad = 0;
    for (int i = 0; i < nrecs; i++) {
        bad += blockstore_read_block(bs, recs[i].file, recs[i].pos, &b) != RC_OK ||
               b.len != recs[i].len || memcmp(b.data, recs[i].data, b.len) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(blockstore_read_undo(bs, 0, upos, prev, &b), RC_OK);
    CHECK(b.len == 11 && memcmp(b.data, "undo bytes!", 11) == 0);
    int nf = blockstore_file_count(bs);
    blockstore_close(bs);
    /* On disk: the frame and the block, XORed at their offsets. */
    snprintf(path, sizeof(path), "%s/blk00000.dat", dir);
    size_t len;
    uint8_t *raw = test_read_file(path, &len);
    CHECK(raw != NULL && len > 8 + recs[0].len);
    if (raw) {
        CHECK(memcmp(raw, MAGIC, 4) != 0);
        obfuscation_apply(&o, raw + 3, len - 3, 3);
        obfuscation_apply(&o, raw, 3, 0);
        CHECK(memcmp(raw, MAGIC, 4) == 0);
        CHECK(memcmp(raw + 8, recs[0].data, recs[0].len) == 0);
        free(raw);
    }
    /* The reindex reader: every record, in order, through chunks read on demand. */
    int seen = 0;
    struct blockfile_record rec;
    for (int f = 0; f < nf; f++) {
        struct blockfile *r = NULL;
        snprintf(path, sizeof(path), "%s/blk%05d.dat", dir, f);
        CHECK_EQ_INT(blockfile_open_obfuscated(&r, path, MAGIC, &o, err, sizeof(err)), RC_OK);
        while (r && blockfile_next(r, &rec) == 1) {
            bad += seen >= nrecs || rec.len != recs[seen].len ||
                   memcmp(rec.data, recs[seen].data, rec.len) != 0;
            seen++;
        }
        if (r && f == 0) {
            /* Given back, then wanted again (a block held for its parent). */
            blockfile_release(r);
            CHECK_EQ_INT(blockfile_read_at(r, recs[1].pos, recs[1].len, &rec), RC_OK);
            CHECK(memcmp(rec.data, recs[1].data, recs[1].len) == 0);
            struct blockfile_stats st;
            blockfile_get_stats(r, &st);
            CHECK_EQ_INT(st.garbage_bytes, 0); /* the zeros of the tail are padding */
            CHECK_EQ_INT(st.read_error, 0);
        }
        blockfile_close(r);
    }
    CHECK_EQ_INT(seen, nrecs);
    CHECK_EQ_INT(bad, 0);
    /* Without the key the same file holds no record of the network. */
    struct blockfile *r = NULL;
    snprintf(path, sizeof(path), "%s/blk00000.dat", dir);
    CHECK_EQ_INT(blockfile_open(&r, path, MAGIC, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockfile_next(r, &rec), 0);
    blockfile_close(r);
    uint8_t magic[4];
    CHECK_EQ_INT(blockfile_sniff_magic(path, &o, magic, err, sizeof(err)), RC_OK);
    CHECK(memcmp(magic, MAGIC, 4) == 0);
    buf_clear(&b);
}

/* A block index record is Core's layout; Core writes its client version (259900) where
 * bitnode writes 1: such a store is refused as Core's, not loaded. */
static void test_core_block_index(void)
{
    char err[512];
    struct block_header h;
    struct reader r;
    reader_init(&r, recs[0].data, 80);
    CHECK_EQ_INT(block_header_parse(&h, &r), 0);
    uint8_t key[33] = {'b'};
    block_header_hash(&h, key + 1);
    for (int core = 0; core < 2; core++) {
        struct kv *kv;
        CHECK_EQ_INT(kv_open(&kv, &kv_mem_ops, NULL, NULL), 0);
        struct buf v;
        buf_init(&v);
        ser_put_varint(&v, core ? 259900 : INDEXDB_VERSION);
        ser_put_varint(&v, 0);                    /* height */
        ser_put_varint(&v, BLOCK_VALID_TREE);     /* status: a header, no data */
        ser_put_varint(&v, 1);                    /* transactions */
        buf_append(&v, recs[0].data, 80);
        struct kv_batch *b = kv_batch_new();
        kv_batch_put(b, key, sizeof(key), v.data, v.len);
        CHECK_EQ_INT(kv_write(kv, b, 0), 0);
        kv_batch_free(b);
        buf_clear(&v);
        struct block_tree *t = block_tree_new();
        int rc = indexdb_load_tree(kv, t, err, sizeof(err));
        if (core) {
            CHECK_EQ_INT(rc, RC_FOREIGN);
            CHECK(strstr(err, "written by Bitcoin Core (record version 259900") != NULL);
            CHECK(strstr(err, "-reindex") != NULL);
        } else {
            CHECK_EQ_INT(rc, RC_OK);
            CHECK(block_tree_find(t, key + 1) != NULL);
        }
        block_tree_free(t);
        kv_close(kv);
    }
}

int main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/bitnode-blockstore-test-%d", (int)getpid());
    load_chain();
    rm_dir();
    TEST(test_write_read_roll);
    rm_dir();
    TEST(test_undo_records);
    rm_dir();
    TEST(test_faults_lose_nothing);
    rm_dir();
    TEST(test_file_info_encoding);
    rm_dir();
    TEST(test_prune_files);
    rm_dir();
    TEST(test_cleanup_for_reindex);
    rm_dir();
    TEST(test_xor_roundtrip);
    rm_dir();
    TEST(test_xor_key_file);
    rm_dir();
    TEST(test_xor_store);
    rm_dir();
    TEST(test_core_block_index);
    free(chain);
    return test_done();
}
