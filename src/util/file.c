#include "util/file.h"

#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <string.h>

#include "util/rc.h"

static int read_plain(struct buf *out, const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && err_len) {
            snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
        }
        return RC_IO;
    }
    uint8_t tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
        buf_append(out, tmp, n);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad && err && err_len) {
        snprintf(err, err_len, "cannot read %s", path);
    }
    return bad ? RC_IO : RC_OK;
}

static int ends_with_xz(const char *path)
{
    size_t l = strlen(path);
    return l >= 3 && strcmp(path + l - 3, ".xz") == 0;
}

int file_read_all(struct buf *out, const char *path, char *err, size_t err_len)
{
    struct buf in;
    int rc;
    if (!ends_with_xz(path)) {
        rc = read_plain(out, path, err, err_len);
        buf_reserve(out, 1);
        out->data[out->len] = 0;
        return rc;
    }
    buf_init(&in);
    if ((rc = read_plain(&in, path, err, err_len))) {
        buf_clear(&in);
        return rc;
    }
    lzma_stream strm = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK) {
        buf_clear(&in);
        return RC_CORRUPT;
    }
    strm.next_in = in.data;
    strm.avail_in = in.len;
    lzma_ret ret;
    do {
        buf_reserve(out, (size_t)1 << 20);
        strm.next_out = out->data + out->len;
        strm.avail_out = out->cap - out->len;
        ret = lzma_code(&strm, LZMA_FINISH);
        out->len = out->cap - strm.avail_out;
    } while (ret == LZMA_OK);
    lzma_end(&strm);
    buf_clear(&in);
    if (ret != LZMA_STREAM_END) {
        if (err && err_len) {
            snprintf(err, err_len, "%s is not a valid xz file", path);
        }
        return RC_CORRUPT;
    }
    buf_reserve(out, 1);
    out->data[out->len] = 0;
    return RC_OK;
}
