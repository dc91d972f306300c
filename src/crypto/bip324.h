/* BIP324's packet cipher: the keys both sides derive from their ephemeral ElligatorSwift keys
 * (x-only ECDH, HKDF-SHA256 salted with the network's magic), the two garbage terminators,
 * the session id, and the encryption of packets: a 3-byte length under FSChaCha20, then a
 * header byte (the ignore bit) and the contents under FSChaCha20Poly1305. Both rekey every
 * 224 messages as BIP324 says. Checked against every row of
 * ../shared/vectors/bip324/packet_encoding_test_vectors.csv.
 */
#ifndef BITNODE_CRYPTO_BIP324_H
#define BITNODE_CRYPTO_BIP324_H

#include <stddef.h>
#include <stdint.h>

#define BIP324_PUBKEY_LEN 64         /* an ElligatorSwift-encoded public key */
#define BIP324_GARBAGE_TERM_LEN 16   /* each side's garbage terminator */
#define BIP324_SESSION_ID_LEN 32
#define BIP324_LENGTH_LEN 3          /* the encrypted length field */
#define BIP324_HEADER_LEN 1          /* the header byte, before the contents */
#define BIP324_TAG_LEN 16            /* Poly1305's tag */
#define BIP324_EXPANSION (BIP324_LENGTH_LEN + BIP324_HEADER_LEN + BIP324_TAG_LEN)
#define BIP324_IGNORE_BIT 0x80       /* in the header byte: a decoy the receiver drops */
#define BIP324_MAX_GARBAGE_LEN 4095

struct bip324_cipher;

/** A cipher holding the private key priv32 and its ElligatorSwift encoding made with the 32
 *  bytes of entropy ent32 (any bytes: they choose among the encodings of the key). 0, or
 *  RC_INVALID when priv32 is not a valid secp256k1 secret key (*out untouched). */
int bip324_cipher_new(struct bip324_cipher **out, const uint8_t priv32[32],
                      const uint8_t ent32[32]);
/** The same with a given encoding ours64 of priv32's public key (the vectors give one). The
 *  encoding is not checked. 0, or RC_INVALID for an invalid priv32. */
int bip324_cipher_new_keyed(struct bip324_cipher **out, const uint8_t priv32[32],
                            const uint8_t ours64[BIP324_PUBKEY_LEN]);
/** Frees c (NULL: no-op); its keys are wiped. */
void bip324_cipher_free(struct bip324_cipher *c);

/** Our ElligatorSwift-encoded public key, the 64 bytes we send first. */
const uint8_t *bip324_our_pubkey(const struct bip324_cipher *c);

/** Derives the session from the peer's encoded key their64: initiator says whether we opened
 *  the connection; magic is the network's 4 message-start bytes. self_decrypt (tests only)
 *  swaps the receiving keys for the sending ones so that c decrypts its own packets. Once. */
void bip324_cipher_initialize(struct bip324_cipher *c, const uint8_t their64[BIP324_PUBKEY_LEN],
                              int initiator, int self_decrypt, const uint8_t magic[4]);

/* After initialize: the session id (getpeerinfo's session_id), the terminator we send after
 * our garbage, and the one that ends the peer's garbage. */
const uint8_t *bip324_session_id(const struct bip324_cipher *c);
const uint8_t *bip324_send_garbage_terminator(const struct bip324_cipher *c);
const uint8_t *bip324_recv_garbage_terminator(const struct bip324_cipher *c);

/** Encrypts one packet of contents (len bytes) with the associated data aad (the sender's
 *  garbage for its first packet, else none) into out, which holds len + BIP324_EXPANSION
 *  bytes. ignore sets the header's ignore bit (a decoy). Advances the sending ciphers. */
void bip324_encrypt(struct bip324_cipher *c, const uint8_t *contents, size_t len,
                    const uint8_t *aad, size_t aad_len, int ignore, uint8_t *out);
/** Decrypts the first BIP324_LENGTH_LEN bytes of a packet: the length of its contents (not
 *  counting the header byte and the tag). Advances the receiving length cipher. */
uint32_t bip324_decrypt_length(struct bip324_cipher *c, const uint8_t in[BIP324_LENGTH_LEN]);
/** Decrypts the rest of the packet whose length was just decrypted: in holds
 *  BIP324_HEADER_LEN + len + BIP324_TAG_LEN bytes; the contents go to contents (len bytes)
 *  and the ignore bit to *ignore. 0, or RC_INVALID when the tag does not authenticate (the
 *  receiving cipher has advanced all the same: the connection is over). */
int bip324_decrypt(struct bip324_cipher *c, const uint8_t *in, size_t len, const uint8_t *aad,
                   size_t aad_len, int *ignore, uint8_t *contents);

#endif
