/* anchors.dat in Bitcoin Core's format (anchors.h; doc/files.md, "Anchors (anchors.dat)"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "net/addrfile.h"
#include "net/anchors.h"
#include "primitives/serialize.h"
#include "util/fs.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define ANCHORS_MAX_BYTES (1u << 20)

void anchors_serialize(struct buf *out, const uint8_t magic[4], const struct addrman_addr *addrs,
                       size_t n)
{
    size_t start = out->len;
    buf_append(out, magic, 4);
    ser_put_compact(out, n);
    for (size_t i = 0; i < n; i++) {
        int64_t t = addrs[i].time;
        uint32_t time = t < 0 ? 0 : t > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)t;
        addrfile_put_caddr(out, &addrs[i].addr, addrs[i].services, time);
    }
    uint8_t sum[32];
    hash_sha256d(sum, out->data + start, out->len - start);
    buf_append(out, sum, 32);
}

int anchors_deserialize(struct addrman_addr **out, size_t *n_out, const uint8_t *p, size_t len,
                        const uint8_t magic[4], char *err, size_t err_len)
{
    struct addrfile_reader r;
    addrfile_reader_init(&r, p, len);
    *out = NULL;
    *n_out = 0;
    uint8_t m[4], sum[32], want[32];
    uint64_t count = 0;
    struct addrman_addr *v = NULL;
    size_t n = 0;
    if (addrfile_read(&r, m, 4) == 0 && memcmp(m, magic, 4) != 0) {
        addrfile_fail(&r, RC_CORRUPT, "Invalid network magic number");
    }
    addrfile_read_compact(&r, &count, 1);
    /* Each CAddress takes at least 12 bytes: a count the input cannot hold ends early. */
    for (uint64_t i = 0; r.rc == 0 && i < count; i++) {
        struct addrfile_caddr ca;
        if (addrfile_read_caddr(&r, &ca, 1)) {
            break;
        }
        if ((n & (n - 1)) == 0) {
            v = xrealloc(v, (n ? 2 * n : 1) * sizeof(*v));
        }
        memset(&v[n], 0, sizeof(v[n]));
        if (ca.valid) {
            v[n].addr = ca.addr;
        }
        v[n].services = ca.services;
        v[n].time = ca.time;
        n++;
    }
    size_t hashed = r.pos;
    if (r.rc == 0 && addrfile_read(&r, want, 32) == 0) {
        hash_sha256d(sum, p, hashed);
        if (memcmp(sum, want, 32) != 0) {
            addrfile_fail(&r, RC_CORRUPT, "Checksum mismatch, data corrupted");
        }
    }
    if (r.rc != 0) {
        if (err && err_len) {
            snprintf(err, err_len, "%s", r.err);
        }
        free(v);
        return r.rc;
    }
    *out = v;
    *n_out = n;
    return RC_OK;
}

int anchors_save(const char *path, const uint8_t magic[4], const struct addrman_addr *addrs,
                 size_t n, char *err, size_t err_len)
{
    struct buf b;
    buf_init(&b);
    anchors_serialize(&b, magic, addrs, n);
    int rc = fs_write_file_atomic(path, b.data, b.len, 0600, err, err_len);
    buf_clear(&b);
    return rc;
}

int anchors_load(struct addrman_addr **out, size_t *n_out, const char *path,
                 const uint8_t magic[4], char *err, size_t err_len)
{
    struct buf b;
    buf_init(&b);
    *out = NULL;
    *n_out = 0;
    int rc = fs_read_file(path, &b, ANCHORS_MAX_BYTES, err, err_len);
    if (rc == RC_OK) {
        rc = anchors_deserialize(out, n_out, b.data, b.len, magic, err, err_len);
    }
    buf_clear(&b);
    if (rc != RC_NOT_FOUND) {
        unlink(path);
    }
    return rc;
}
