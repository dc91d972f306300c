/* Unit tests for src/blockstore/blockfile: the -loadblock record reader, on the bundled
 * regtest chain and on hand-made files with padding, garbage, bad frames and truncation. */
#include "test.h"

#include <errno.h>
#include <jansson.h>
#include <unistd.h>

#include "blockstore/blockfile.h"
#include "util/buf.h"
#include "util/rc.h"

static const uint8_t REGTEST_MAGIC[4] = {0xfa, 0xbf, 0xb5, 0xda};

static void put_record(struct buf *b, const uint8_t magic[4], uint32_t len, uint8_t fill)
{
    buf_append(b, magic, 4);
    buf_put_u32le(b, len);
    buf_append_fill(b, fill, len);
}

static char tmp_path[256];

static void write_tmp(const struct buf *b)
{
    snprintf(tmp_path, sizeof(tmp_path), "/tmp/bitnode-blockfile-test-%d.dat", (int)getpid());
    FILE *f = fopen(tmp_path, "wb");
    CHECK(f != NULL);
    if (f) {
        if (b->len) {
            CHECK_EQ_INT(fwrite(b->data, 1, b->len, f), b->len);
        }
        fclose(f);
    }
}

static void test_regtest_small(void)
{
    char path[4200], err[256];
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    struct blockfile_stats st;
    json_t *exp, *files;
    json_error_t jerr;

    snprintf(path, sizeof(path), "%s/regtest-small/expected.json", test_data_dir());
    exp = json_load_file(path, 0, &jerr);
    CHECK(exp != NULL);
    if (!exp) {
        return;
    }
    files = json_array_get(json_object_get(exp, "block_files"), 0);
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    CHECK_EQ_INT(blockfile_open(&bf, path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    if (!bf) {
        json_decref(exp);
        return;
    }
    uint64_t n = 0, end = 0;
    while (blockfile_next(bf, &rec) == 1) {
        n++;
        end = rec.offset + rec.len;
    }
    blockfile_get_stats(bf, &st);
    CHECK_EQ_U64(n, json_integer_value(json_object_get(files, "blocks")));
    CHECK_EQ_U64(end, json_integer_value(json_object_get(files, "payload_end")));
    CHECK_EQ_U64(st.skipped_bytes, json_integer_value(json_object_get(files, "trailing_zero_bytes")));
    CHECK_EQ_U64(blockfile_size(bf), json_integer_value(json_object_get(files, "bytes")));
    CHECK_EQ_INT(st.truncated_tail, 0);
    CHECK_EQ_INT(st.bad_frames, 0);
    blockfile_close(bf);
    json_decref(exp);
}

/* Padding and garbage between records are skipped; a magic-like prefix is not a record. */
static void test_padding_and_garbage(void)
{
    struct buf b;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    struct blockfile_stats st;
    char err[256];
    buf_init(&b);
    buf_append_fill(&b, 0, 100);
    put_record(&b, REGTEST_MAGIC, 80, 0x11);
    buf_append(&b, "garbage\xfa\xbf", 9);    /* partial magic */
    buf_append(&b, "\xfa\xbf\xb5\xda\x10\x00\x00\x00", 8); /* size 16 < 80: bad frame */
    put_record(&b, REGTEST_MAGIC, 200, 0x22);
    buf_append_fill(&b, 0, 4096);
    write_tmp(&b);

    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 1);
    CHECK_EQ_INT(rec.len, 80);
    CHECK_EQ_U64(rec.offset, 108);
    CHECK_EQ_INT(rec.data[0], 0x11);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 1);
    CHECK_EQ_INT(rec.len, 200);
    CHECK_EQ_INT(rec.data[199], 0x22);
    uint64_t off = rec.offset;
    CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
    blockfile_get_stats(bf, &st);
    CHECK_EQ_U64(st.records, 2);
    CHECK_EQ_U64(st.bad_frames, 1);
    CHECK_EQ_U64(st.first_bad_frame_at, 100 + 88 + 9);
    /* Zero padding is no garbage; "garbage", the partial magic and the bad frame's non-zero
     * header bytes (fa bf b5 da 10) are. */
    CHECK_EQ_U64(st.garbage_bytes, 9 + 5);
    CHECK_EQ_U64(st.first_garbage_at, 100 + 88);
    CHECK_EQ_INT(st.truncated_tail, 0);
    /* Remembered positions can be read back. */
    CHECK_EQ_INT(blockfile_read_at(bf, off, 200, &rec), RC_OK);
    CHECK_EQ_INT(rec.data[0], 0x22);
    CHECK_EQ_INT(blockfile_read_at(bf, off, 1u << 30, &rec), RC_INVALID);
    blockfile_rewind(bf);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 1);
    CHECK_EQ_INT(rec.len, 80);
    blockfile_close(bf);
    unlink(tmp_path);
    buf_clear(&b);
}

/* A file larger than the window the reader keeps mapped (40 records of 1 MB): every record
 * reads back whole, in order and by position afterwards, also the ones whose pages were
 * given back, and again after a rewind. */
static void test_large_file_released_pages(void)
{
    enum { N = 40, LEN = 1000000 };
    struct buf b;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    char err[256];
    uint64_t offs[N];
    buf_init(&b);
    for (int i = 0; i < N; i++) {
        put_record(&b, REGTEST_MAGIC, LEN, (uint8_t)(0x40 + i));
    }
    write_tmp(&b);
    buf_clear(&b);
    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    int whole = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < N; i++) {
            if (blockfile_next(bf, &rec) != 1 || rec.len != LEN) {
                break;
            }
            offs[i] = rec.offset;
            whole += rec.data[0] == (uint8_t)(0x40 + i) && rec.data[LEN - 1] == (uint8_t)(0x40 + i);
        }
        CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
        blockfile_rewind(bf);
    }
    CHECK_EQ_INT(whole, 2 * N);
    int back = 0;
    for (int i = 0; i < N; i++) {
        back += blockfile_read_at(bf, offs[i], LEN, &rec) == RC_OK &&
                rec.data[LEN / 2] == (uint8_t)(0x40 + i);
    }
    CHECK_EQ_INT(back, N);
    blockfile_close(bf);
    unlink(tmp_path);
}

/* A file that shrinks under the reader (another process truncates it, or a disk fails a
 * read) ends there with read_error in the stats, and blockfile_read_at answers RC_IO: the
 * reader never maps the file, where touching a page past the new end is SIGBUS. */
static void test_file_shrinks_under_reader(void)
{
    enum { N = 8, LEN = 1000000 };
    struct buf b;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    struct blockfile_stats st;
    char err[256];
    buf_init(&b);
    for (int i = 0; i < N; i++) {
        put_record(&b, REGTEST_MAGIC, LEN, (uint8_t)(0x10 + i));
    }
    write_tmp(&b);
    buf_clear(&b);
    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    if (!bf) {
        return;
    }
    CHECK_EQ_INT(blockfile_next(bf, &rec), 1);
    uint64_t last = 0;
    CHECK_EQ_INT(truncate(tmp_path, 3u << 20), 0);
    int n = 1;
    while (blockfile_next(bf, &rec) == 1) {
        n++;
        last = rec.offset;
    }
    CHECK(n >= 1 && n <= 3);
    blockfile_get_stats(bf, &st);
    CHECK_EQ_INT(st.read_error, EIO);
    CHECK(st.read_error_at >= last && st.read_error_at <= (3u << 20));
    CHECK_EQ_INT(blockfile_read_at(bf, 6u * (LEN + 8) + 8, LEN, &rec), RC_IO);
    blockfile_close(bf);
    unlink(tmp_path);
}

/* A record cut short at the end of the file is not returned and is reported. */
static void test_truncated_tail(void)
{
    struct buf b;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    struct blockfile_stats st;
    char err[256];
    buf_init(&b);
    put_record(&b, REGTEST_MAGIC, 100, 0x33);
    size_t second = b.len;
    put_record(&b, REGTEST_MAGIC, 100, 0x44);
    b.len -= 1; /* cut the last byte */
    write_tmp(&b);
    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 1);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
    blockfile_get_stats(bf, &st);
    CHECK_EQ_INT(st.truncated_tail, 1);
    CHECK_EQ_U64(st.truncated_at, second);
    blockfile_close(bf);

    /* Only a frame header, no room for its size field. */
    buf_reset(&b);
    buf_append(&b, REGTEST_MAGIC, 4);
    buf_append(&b, "\x01\x00", 2);
    write_tmp(&b);
    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
    blockfile_get_stats(bf, &st);
    CHECK_EQ_INT(st.truncated_tail, 1);
    blockfile_close(bf);
    unlink(tmp_path);
    buf_clear(&b);
}

/* The magic of another network is garbage for this one. */
static void test_other_network(void)
{
    static const uint8_t MAIN_MAGIC[4] = {0xf9, 0xbe, 0xb4, 0xd9};
    struct buf b;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    uint8_t sniffed[4];
    char err[256];
    buf_init(&b);
    buf_append_fill(&b, 0, 8);
    put_record(&b, MAIN_MAGIC, 90, 0x55);
    write_tmp(&b);
    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
    blockfile_close(bf);
    CHECK_EQ_INT(blockfile_sniff_magic(tmp_path, NULL, sniffed, err, sizeof(err)), RC_OK);
    CHECK_EQ_MEM(sniffed, MAIN_MAGIC, 4);
    unlink(tmp_path);
    buf_clear(&b);
}

static void test_empty_and_missing(void)
{
    struct buf b;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    uint8_t sniffed[4];
    char err[256] = "";
    buf_init(&b);
    write_tmp(&b);
    CHECK_EQ_INT(blockfile_open(&bf, tmp_path, REGTEST_MAGIC, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(blockfile_next(bf, &rec), 0);
    blockfile_close(bf);
    CHECK_EQ_INT(blockfile_sniff_magic(tmp_path, NULL, sniffed, err, sizeof(err)), RC_NOT_FOUND);
    unlink(tmp_path);
    bf = NULL;
    CHECK_EQ_INT(blockfile_open(&bf, "/nonexistent/blk.dat", REGTEST_MAGIC, err, sizeof(err)),
                 RC_IO);
    CHECK(bf == NULL);
    CHECK(strstr(err, "/nonexistent/blk.dat") != NULL);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK_EQ_INT(blockfile_open(&bf, "/tmp", REGTEST_MAGIC, err, sizeof(err)), RC_IO);
    CHECK(strstr(err, "not a regular file") != NULL);
    buf_clear(&b);
}

int main(void)
{
    TEST(test_regtest_small);
    TEST(test_padding_and_garbage);
    TEST(test_large_file_released_pages);
    TEST(test_file_shrinks_under_reader);
    TEST(test_truncated_tail);
    TEST(test_other_network);
    TEST(test_empty_and_missing);
    return test_done();
}
