/* ChaCha20-Poly1305 and FSChaCha20Poly1305 (see chacha20poly1305.h) on OpenSSL's
 * "ChaCha20-Poly1305", whose 12-byte IV is the nonce. One EVP context per object: each
 * message only sets the IV (and the direction) again. */
#include "crypto/chacha20poly1305.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct chacha20poly1305 {
    EVP_CIPHER_CTX *ctx;
};

/* Sets the nonce (and, unless NULL, the key) for a message in direction enc (1 encrypt,
 * 0 decrypt). */
static void start(struct chacha20poly1305 *a, const uint8_t *key32, uint32_t nonce32,
                  uint64_t nonce64, int enc)
{
    uint8_t iv[12];
    for (int i = 0; i < 4; i++) {
        iv[i] = (uint8_t)(nonce32 >> (8 * i));
    }
    for (int i = 0; i < 8; i++) {
        iv[4 + i] = (uint8_t)(nonce64 >> (8 * i));
    }
    CHECK_ALWAYS(EVP_CipherInit_ex(a->ctx, NULL, NULL, key32, iv, enc) == 1);
}

/* EVP_CipherUpdate over any length (in NULL: aad); len 0 does nothing. */
static void update(struct chacha20poly1305 *a, uint8_t *out, const uint8_t *in, size_t len)
{
    while (len > 0) {
        int n = len > (size_t)INT_MAX / 2 ? INT_MAX / 2 : (int)len;
        int outl = 0;
        CHECK_ALWAYS(EVP_CipherUpdate(a->ctx, out, &outl, in, n) == 1 && (!out || outl == n));
        if (out) {
            out += n;
        }
        in += n;
        len -= (size_t)n;
    }
}

static void open_ctx(struct chacha20poly1305 *a, const uint8_t key32[CHACHA20POLY1305_KEY_LEN])
{
    a->ctx = EVP_CIPHER_CTX_new();
    CHECK_ALWAYS(a->ctx != NULL);
    CHECK_ALWAYS(EVP_CipherInit_ex(a->ctx, EVP_chacha20_poly1305(), NULL, NULL, NULL, 1) == 1);
    start(a, key32, 0, 0, 1);
}

struct chacha20poly1305 *chacha20poly1305_new(const uint8_t key32[CHACHA20POLY1305_KEY_LEN])
{
    struct chacha20poly1305 *a = xmalloc(sizeof(*a));
    open_ctx(a, key32);
    return a;
}

void chacha20poly1305_free(struct chacha20poly1305 *a)
{
    if (!a) {
        return;
    }
    /* OpenSSL wipes the key when it frees the context */
    EVP_CIPHER_CTX_free(a->ctx);
    free(a);
}

void chacha20poly1305_set_key(struct chacha20poly1305 *a,
                              const uint8_t key32[CHACHA20POLY1305_KEY_LEN])
{
    start(a, key32, 0, 0, 1);
}

void chacha20poly1305_encrypt(struct chacha20poly1305 *a, uint8_t *out, const uint8_t *plain1,
                              size_t len1, const uint8_t *plain2, size_t len2, const uint8_t *aad,
                              size_t aad_len, uint32_t nonce32, uint64_t nonce64)
{
    int outl = 0;
    start(a, NULL, nonce32, nonce64, 1);
    update(a, NULL, aad, aad_len);
    update(a, out, plain1, len1);
    update(a, out + len1, plain2, len2);
    CHECK_ALWAYS(EVP_CipherFinal_ex(a->ctx, out + len1 + len2, &outl) == 1 && outl == 0);
    CHECK_ALWAYS(EVP_CIPHER_CTX_ctrl(a->ctx, EVP_CTRL_AEAD_GET_TAG, CHACHA20POLY1305_TAG_LEN,
                                     out + len1 + len2) == 1);
}

int chacha20poly1305_decrypt(struct chacha20poly1305 *a, uint8_t *plain1, size_t len1,
                             uint8_t *plain2, size_t len2, const uint8_t *in, const uint8_t *aad,
                             size_t aad_len, uint32_t nonce32, uint64_t nonce64)
{
    uint8_t tag[CHACHA20POLY1305_TAG_LEN];
    int outl = 0;
    memcpy(tag, in + len1 + len2, sizeof(tag));
    start(a, NULL, nonce32, nonce64, 0);
    update(a, NULL, aad, aad_len);
    update(a, plain1, in, len1);
    update(a, plain2, in + len1, len2);
    CHECK_ALWAYS(EVP_CIPHER_CTX_ctrl(a->ctx, EVP_CTRL_AEAD_SET_TAG, sizeof(tag), tag) == 1);
    if (EVP_CipherFinal_ex(a->ctx, tag, &outl) != 1) {
        if (len1) {
            OPENSSL_cleanse(plain1, len1);
        }
        if (len2) {
            OPENSSL_cleanse(plain2, len2);
        }
        return RC_INVALID;
    }
    return RC_OK;
}

void chacha20poly1305_keystream(struct chacha20poly1305 *a, uint8_t *out, size_t len,
                                uint32_t nonce32, uint64_t nonce64)
{
    /* the ciphertext of zeros; the tag is never made, the next message starts afresh */
    memset(out, 0, len);
    start(a, NULL, nonce32, nonce64, 1);
    update(a, out, out, len);
}

struct fschacha20poly1305 {
    struct chacha20poly1305 a;
    uint32_t rekey_interval;
    uint32_t packet_counter; /* packets since the last rekey */
    uint64_t rekey_counter;
};

struct fschacha20poly1305 *fschacha20poly1305_new(const uint8_t key32[CHACHA20POLY1305_KEY_LEN],
                                                  uint32_t rekey_interval)
{
    CHECK_ALWAYS(rekey_interval > 0);
    struct fschacha20poly1305 *f = xmalloc(sizeof(*f));
    open_ctx(&f->a, key32);
    f->rekey_interval = rekey_interval;
    f->packet_counter = 0;
    f->rekey_counter = 0;
    return f;
}

void fschacha20poly1305_free(struct fschacha20poly1305 *f)
{
    if (!f) {
        return;
    }
    EVP_CIPHER_CTX_free(f->a.ctx);
    free(f);
}

static void next_packet(struct fschacha20poly1305 *f)
{
    if (++f->packet_counter == f->rekey_interval) {
        uint8_t key[CHACHA20POLY1305_KEY_LEN];
        chacha20poly1305_keystream(&f->a, key, sizeof(key), 0xffffffff, f->rekey_counter);
        start(&f->a, key, 0, 0, 1);
        OPENSSL_cleanse(key, sizeof(key));
        f->packet_counter = 0;
        f->rekey_counter++;
    }
}

void fschacha20poly1305_encrypt(struct fschacha20poly1305 *f, uint8_t *out, const uint8_t *plain1,
                                size_t len1, const uint8_t *plain2, size_t len2, const uint8_t *aad,
                                size_t aad_len)
{
    chacha20poly1305_encrypt(&f->a, out, plain1, len1, plain2, len2, aad, aad_len,
                             f->packet_counter, f->rekey_counter);
    next_packet(f);
}

int fschacha20poly1305_decrypt(struct fschacha20poly1305 *f, uint8_t *plain1, size_t len1,
                               uint8_t *plain2, size_t len2, const uint8_t *in, const uint8_t *aad,
                               size_t aad_len)
{
    int rc = chacha20poly1305_decrypt(&f->a, plain1, len1, plain2, len2, in, aad, aad_len,
                                      f->packet_counter, f->rekey_counter);
    next_packet(f);
    return rc;
}
