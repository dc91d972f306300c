/* BIP324's packet cipher (see bip324.h). The key schedule follows BIP324's "Shared secret
 * computation" and "Key derivation"; the packet layout its "Packet encryption". */
#include "crypto/bip324.h"

#include <string.h>

#include <openssl/crypto.h>
#include <secp256k1.h>

#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/ellswift.h"
#include "crypto/hash.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define REKEY_INTERVAL 224

struct bip324_cipher {
    uint8_t priv[32]; /* wiped once the session's keys are derived */
    uint8_t ours[BIP324_PUBKEY_LEN];
    int initialized;
    struct fschacha20 *send_l, *recv_l;
    struct fschacha20poly1305 *send_p, *recv_p;
    uint8_t session_id[BIP324_SESSION_ID_LEN];
    uint8_t send_terminator[BIP324_GARBAGE_TERM_LEN];
    uint8_t recv_terminator[BIP324_GARBAGE_TERM_LEN];
};

static struct bip324_cipher *cipher_alloc(const uint8_t priv32[32])
{
    struct bip324_cipher *c = xmalloc(sizeof(*c));
    memset(c, 0, sizeof(*c));
    memcpy(c->priv, priv32, 32);
    return c;
}

int bip324_cipher_new(struct bip324_cipher **out, const uint8_t priv32[32], const uint8_t ent32[32])
{
    uint8_t ours[BIP324_PUBKEY_LEN];
    int rc = ellswift_create(ours, priv32, ent32);
    if (rc != RC_OK) {
        return rc;
    }
    *out = cipher_alloc(priv32);
    memcpy((*out)->ours, ours, sizeof(ours));
    return RC_OK;
}

int bip324_cipher_new_keyed(struct bip324_cipher **out, const uint8_t priv32[32],
                            const uint8_t ours64[BIP324_PUBKEY_LEN])
{
    if (!secp256k1_ec_seckey_verify(secp256k1_context_static, priv32)) {
        return RC_INVALID;
    }
    *out = cipher_alloc(priv32);
    memcpy((*out)->ours, ours64, BIP324_PUBKEY_LEN);
    return RC_OK;
}

void bip324_cipher_free(struct bip324_cipher *c)
{
    if (!c) {
        return;
    }
    fschacha20_free(c->send_l);
    fschacha20_free(c->recv_l);
    fschacha20poly1305_free(c->send_p);
    fschacha20poly1305_free(c->recv_p);
    OPENSSL_cleanse(c, sizeof(*c));
    free(c);
}

const uint8_t *bip324_our_pubkey(const struct bip324_cipher *c)
{
    return c->ours;
}

/* One 32-byte key of the session: HKDF-Expand of prk32 with the ASCII info string. */
static void expand(uint8_t okm32[32], const uint8_t prk32[32], const char *info)
{
    hash_hkdf_sha256_expand32(okm32, prk32, info, strlen(info));
}

void bip324_cipher_initialize(struct bip324_cipher *c, const uint8_t their64[BIP324_PUBKEY_LEN],
                              int initiator, int self_decrypt, const uint8_t magic[4])
{
    static const char salt_prefix[] = "bitcoin_v2_shared_secret";
    uint8_t salt[sizeof(salt_prefix) - 1 + 4], secret[32], prk[32], okm[32];
    CHECK_ALWAYS(!c->initialized);
    /* the key was checked when c was made */
    CHECK_ALWAYS(ellswift_xdh(secret, c->ours, their64, c->priv, initiator) == RC_OK);
    memcpy(salt, salt_prefix, sizeof(salt_prefix) - 1);
    memcpy(salt + sizeof(salt_prefix) - 1, magic, 4);
    hash_hkdf_sha256_extract(prk, salt, sizeof(salt), secret, sizeof(secret));

    /* The initiator sends with the initiator's keys. self_decrypt swaps the receiving side's
     * keys for the sending side's, so that the object can read what it wrote. */
    int side = initiator != self_decrypt;
    expand(okm, prk, "initiator_L");
    *(side ? &c->send_l : &c->recv_l) = fschacha20_new(okm, REKEY_INTERVAL);
    expand(okm, prk, "initiator_P");
    *(side ? &c->send_p : &c->recv_p) = fschacha20poly1305_new(okm, REKEY_INTERVAL);
    expand(okm, prk, "responder_L");
    *(side ? &c->recv_l : &c->send_l) = fschacha20_new(okm, REKEY_INTERVAL);
    expand(okm, prk, "responder_P");
    *(side ? &c->recv_p : &c->send_p) = fschacha20poly1305_new(okm, REKEY_INTERVAL);

    /* the first half ends the initiator's garbage, the second the responder's */
    expand(okm, prk, "garbage_terminators");
    memcpy(initiator ? c->send_terminator : c->recv_terminator, okm, BIP324_GARBAGE_TERM_LEN);
    memcpy(initiator ? c->recv_terminator : c->send_terminator, okm + 32 - BIP324_GARBAGE_TERM_LEN,
           BIP324_GARBAGE_TERM_LEN);
    expand(c->session_id, prk, "session_id");

    OPENSSL_cleanse(secret, sizeof(secret));
    OPENSSL_cleanse(prk, sizeof(prk));
    OPENSSL_cleanse(okm, sizeof(okm));
    OPENSSL_cleanse(c->priv, sizeof(c->priv));
    c->initialized = 1;
}

const uint8_t *bip324_session_id(const struct bip324_cipher *c)
{
    return c->session_id;
}

const uint8_t *bip324_send_garbage_terminator(const struct bip324_cipher *c)
{
    return c->send_terminator;
}

const uint8_t *bip324_recv_garbage_terminator(const struct bip324_cipher *c)
{
    return c->recv_terminator;
}

void bip324_encrypt(struct bip324_cipher *c, const uint8_t *contents, size_t len,
                    const uint8_t *aad, size_t aad_len, int ignore, uint8_t *out)
{
    CHECK_ALWAYS(c->initialized && len < (1u << 24));
    uint8_t len3[BIP324_LENGTH_LEN] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16)};
    uint8_t header = ignore ? BIP324_IGNORE_BIT : 0;
    fschacha20_crypt(c->send_l, out, len3, sizeof(len3));
    fschacha20poly1305_encrypt(c->send_p, out + BIP324_LENGTH_LEN, &header, 1, contents, len, aad,
                               aad_len);
}

uint32_t bip324_decrypt_length(struct bip324_cipher *c, const uint8_t in[BIP324_LENGTH_LEN])
{
    uint8_t len3[BIP324_LENGTH_LEN];
    CHECK_ALWAYS(c->initialized);
    fschacha20_crypt(c->recv_l, len3, in, sizeof(len3));
    return (uint32_t)len3[0] | (uint32_t)len3[1] << 8 | (uint32_t)len3[2] << 16;
}

int bip324_decrypt(struct bip324_cipher *c, const uint8_t *in, size_t len, const uint8_t *aad,
                   size_t aad_len, int *ignore, uint8_t *contents)
{
    uint8_t header;
    CHECK_ALWAYS(c->initialized);
    int rc = fschacha20poly1305_decrypt(c->recv_p, &header, 1, contents, len, in, aad, aad_len);
    if (rc != RC_OK) {
        return rc;
    }
    *ignore = (header & BIP324_IGNORE_BIT) != 0;
    return RC_OK;
}
