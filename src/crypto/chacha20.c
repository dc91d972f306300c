/* ChaCha20 and FSChaCha20 (see chacha20.h). OpenSSL's "ChaCha20" takes a 16-byte IV: the
 * block counter (4 bytes little-endian), then the 12-byte nonce; it keeps the position within
 * a block between calls, and carries the counter into the nonce's first word. */
#include "crypto/chacha20.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "util/check.h"
#include "util/xmalloc.h"

struct chacha20 {
    EVP_CIPHER_CTX *ctx;
};

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* Keys (key32 may be NULL: the same key) and seeks. */
static void init_at(struct chacha20 *c, const uint8_t *key32, uint32_t nonce32, uint64_t nonce64,
                    uint32_t block)
{
    uint8_t iv[16];
    put_le32(iv, block);
    put_le32(iv + 4, nonce32);
    put_le64(iv + 8, nonce64);
    CHECK_ALWAYS(EVP_EncryptInit_ex(c->ctx, NULL, NULL, key32, iv) == 1);
}

/* The context is made once per object: rekeys and seeks reuse it. */
static void open_ctx(struct chacha20 *c, const uint8_t key32[CHACHA20_KEY_LEN])
{
    c->ctx = EVP_CIPHER_CTX_new();
    CHECK_ALWAYS(c->ctx != NULL);
    CHECK_ALWAYS(EVP_EncryptInit_ex(c->ctx, EVP_chacha20(), NULL, NULL, NULL) == 1);
    init_at(c, key32, 0, 0, 0);
}

struct chacha20 *chacha20_new(const uint8_t key32[CHACHA20_KEY_LEN])
{
    struct chacha20 *c = xmalloc(sizeof(*c));
    open_ctx(c, key32);
    return c;
}

void chacha20_free(struct chacha20 *c)
{
    if (!c) {
        return;
    }
    /* OpenSSL wipes the key schedule when it frees the context */
    EVP_CIPHER_CTX_free(c->ctx);
    free(c);
}

void chacha20_set_key(struct chacha20 *c, const uint8_t key32[CHACHA20_KEY_LEN])
{
    init_at(c, key32, 0, 0, 0);
}

void chacha20_seek(struct chacha20 *c, uint32_t nonce32, uint64_t nonce64, uint32_t block)
{
    init_at(c, NULL, nonce32, nonce64, block);
}

void chacha20_crypt(struct chacha20 *c, uint8_t *out, const uint8_t *in, size_t len)
{
    while (len > 0) {
        int n =
            len > (size_t)INT_MAX - CHACHA20_BLOCK_LEN ? INT_MAX - CHACHA20_BLOCK_LEN : (int)len;
        int outl = 0;
        CHECK_ALWAYS(EVP_EncryptUpdate(c->ctx, out, &outl, in, n) == 1 && outl == n);
        out += n;
        in += n;
        len -= (size_t)n;
    }
}

void chacha20_keystream(struct chacha20 *c, uint8_t *out, size_t len)
{
    memset(out, 0, len);
    chacha20_crypt(c, out, out, len);
}

struct fschacha20 {
    struct chacha20 c;
    uint32_t rekey_interval;
    uint32_t chunk_counter; /* messages since the last rekey */
    uint64_t rekey_counter;
};

struct fschacha20 *fschacha20_new(const uint8_t key32[CHACHA20_KEY_LEN], uint32_t rekey_interval)
{
    CHECK_ALWAYS(rekey_interval > 0);
    struct fschacha20 *f = xmalloc(sizeof(*f));
    open_ctx(&f->c, key32);
    f->rekey_interval = rekey_interval;
    f->chunk_counter = 0;
    f->rekey_counter = 0;
    return f;
}

void fschacha20_free(struct fschacha20 *f)
{
    if (!f) {
        return;
    }
    EVP_CIPHER_CTX_free(f->c.ctx);
    free(f);
}

void fschacha20_crypt(struct fschacha20 *f, uint8_t *out, const uint8_t *in, size_t len)
{
    chacha20_crypt(&f->c, out, in, len);
    if (++f->chunk_counter == f->rekey_interval) {
        uint8_t key[CHACHA20_KEY_LEN];
        chacha20_keystream(&f->c, key, sizeof(key));
        f->rekey_counter++;
        init_at(&f->c, key, 0, f->rekey_counter, 0);
        OPENSSL_cleanse(key, sizeof(key));
        f->chunk_counter = 0;
    }
}
