/* ChaCha20 (RFC 8439) on OpenSSL's EVP, with the 96-bit nonce BIP324 and Bitcoin Core split
 * in two: nonce32, the first 4 bytes (little-endian), and nonce64, the last 8 (little-endian).
 * The 32-bit block counter carries into nonce32, so a stream runs on past 256 GiB as with a
 * 64-bit counter. And FSChaCha20, BIP324's cipher for the length field: one continuous
 * keystream that rekeys itself every rekey_interval messages (see fschacha20_crypt).
 *
 * An object is not thread-safe; distinct objects may be used from distinct threads. Keys are
 * wiped when an object is freed or rekeyed.
 */
#ifndef BITNODE_CRYPTO_CHACHA20_H
#define BITNODE_CRYPTO_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

#define CHACHA20_KEY_LEN 32
#define CHACHA20_BLOCK_LEN 64

struct chacha20; /* opaque */

/** A cipher keyed with key32, at nonce 0, block 0; free with chacha20_free. */
struct chacha20 *chacha20_new(const uint8_t key32[CHACHA20_KEY_LEN]);
/** Frees c (NULL: no-op). */
void chacha20_free(struct chacha20 *c);
/** Replaces the key with key32 and seeks to nonce 0, block 0. */
void chacha20_set_key(struct chacha20 *c, const uint8_t key32[CHACHA20_KEY_LEN]);
/** Seeks to the start of block block of the stream of nonce (nonce32, nonce64). */
void chacha20_seek(struct chacha20 *c, uint32_t nonce32, uint64_t nonce64, uint32_t block);
/** XORs len bytes of keystream into in, to out (in == out is allowed), continuing where the
 *  previous call stopped, also within a block. */
void chacha20_crypt(struct chacha20 *c, uint8_t *out, const uint8_t *in, size_t len);
/** Writes the next len bytes of keystream to out. */
void chacha20_keystream(struct chacha20 *c, uint8_t *out, size_t len);

struct fschacha20; /* opaque */

/** A forward-secure ChaCha20 keyed with key32 at nonce (0, 0); it rekeys after every
 *  rekey_interval calls of fschacha20_crypt (BIP324: 224). Free with fschacha20_free. */
struct fschacha20 *fschacha20_new(const uint8_t key32[CHACHA20_KEY_LEN], uint32_t rekey_interval);
/** Frees c (NULL: no-op); its key is wiped. */
void fschacha20_free(struct fschacha20 *c);
/** Encrypts or decrypts one message of len bytes (in == out is allowed) with the next bytes
 *  of the keystream. After each rekey_interval-th message, the next 32 bytes of keystream
 *  become the key and the stream restarts at nonce (0, number of rekeys so far), block 0. */
void fschacha20_crypt(struct fschacha20 *c, uint8_t *out, const uint8_t *in, size_t len);

#endif
