/* The AEAD ChaCha20-Poly1305 of RFC 8439 on OpenSSL's EVP, with the nonce split as in
 * chacha20.h (nonce32: first 4 bytes, nonce64: last 8, each little-endian), and BIP324's
 * FSChaCha20Poly1305, which takes the nonce from a packet counter and rekeys itself every
 * rekey_interval packets. The tag follows the ciphertext.
 *
 * The plaintext comes in two parts, encrypted as one message: BIP324's header byte and the
 * packet's contents, without copying them together.
 *
 * An object is not thread-safe; distinct objects may be used from distinct threads. Keys are
 * wiped when an object is freed or rekeyed.
 */
#ifndef BITNODE_CRYPTO_CHACHA20POLY1305_H
#define BITNODE_CRYPTO_CHACHA20POLY1305_H

#include <stddef.h>
#include <stdint.h>

#define CHACHA20POLY1305_KEY_LEN 32
#define CHACHA20POLY1305_TAG_LEN 16

struct chacha20poly1305; /* opaque */

/** An AEAD keyed with key32; free with chacha20poly1305_free. */
struct chacha20poly1305 *chacha20poly1305_new(const uint8_t key32[CHACHA20POLY1305_KEY_LEN]);
/** Frees a (NULL: no-op); its key is wiped. */
void chacha20poly1305_free(struct chacha20poly1305 *a);
/** Replaces the key. */
void chacha20poly1305_set_key(struct chacha20poly1305 *a,
                              const uint8_t key32[CHACHA20POLY1305_KEY_LEN]);

/** Encrypts plain1 || plain2 (len1 + len2 bytes; a pointer may be NULL when its length is 0)
 *  authenticated with aad under nonce (nonce32, nonce64) into out: len1 + len2 bytes of
 *  ciphertext, then the 16-byte tag. out may not overlap the inputs. */
void chacha20poly1305_encrypt(struct chacha20poly1305 *a, uint8_t *out, const uint8_t *plain1,
                              size_t len1, const uint8_t *plain2, size_t len2, const uint8_t *aad,
                              size_t aad_len, uint32_t nonce32, uint64_t nonce64);
/** Decrypts in (len1 + len2 bytes of ciphertext, then the tag) under nonce (nonce32,
 *  nonce64) into plain1 (its first len1 bytes) and plain2 (the rest).
 *
 *  Returns: 0; RC_INVALID when the tag does not authenticate in and aad, with plain1 and
 *           plain2 zeroed (nothing unauthenticated is handed out). */
int chacha20poly1305_decrypt(struct chacha20poly1305 *a, uint8_t *plain1, size_t len1,
                             uint8_t *plain2, size_t len2, const uint8_t *in, const uint8_t *aad,
                             size_t aad_len, uint32_t nonce32, uint64_t nonce64);
/** The keystream that would encrypt a message under nonce (nonce32, nonce64): ChaCha20's
 *  from block 1 on (block 0 makes the Poly1305 key). */
void chacha20poly1305_keystream(struct chacha20poly1305 *a, uint8_t *out, size_t len,
                                uint32_t nonce32, uint64_t nonce64);

struct fschacha20poly1305; /* opaque */

/** BIP324's forward-secure AEAD keyed with key32: packet n of a key gets nonce
 *  (n, number of rekeys so far); after rekey_interval packets (BIP324: 224) the first 32
 *  bytes of chacha20poly1305_keystream at nonce (0xffffffff, number of rekeys so far) become
 *  the key. Free with fschacha20poly1305_free. */
struct fschacha20poly1305 *fschacha20poly1305_new(const uint8_t key32[CHACHA20POLY1305_KEY_LEN],
                                                  uint32_t rekey_interval);
/** Frees f (NULL: no-op); its key is wiped. */
void fschacha20poly1305_free(struct fschacha20poly1305 *f);
/** chacha20poly1305_encrypt with the next packet's nonce; advances to the next packet. */
void fschacha20poly1305_encrypt(struct fschacha20poly1305 *f, uint8_t *out, const uint8_t *plain1,
                                size_t len1, const uint8_t *plain2, size_t len2, const uint8_t *aad,
                                size_t aad_len);
/** chacha20poly1305_decrypt with the next packet's nonce; advances to the next packet also
 *  when it fails. 0, or RC_INVALID. */
int fschacha20poly1305_decrypt(struct fschacha20poly1305 *f, uint8_t *plain1, size_t len1,
                               uint8_t *plain2, size_t len2, const uint8_t *in, const uint8_t *aad,
                               size_t aad_len);

#endif
