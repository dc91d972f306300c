/* Bitcoin Signed Message: the message signatures of signmessagewithprivkey and
 * verifymessage, as Bitcoin Core's common/signmessage.cpp makes and checks them.
 *
 * The signed hash is SHA-256d of the serialized strings "Bitcoin Signed Message:\n" and the
 * message (each with its compact-size length). The signature is 65 bytes, base64-encoded: a
 * header byte 27 + recovery id (+ 4 when the key is compressed), then r and s (32 bytes each,
 * big-endian). Verification recovers the public key and compares its HASH160 with the P2PKH
 * address. Pure: no I/O.
 */
#ifndef BITNODE_SIGN_MESSAGE_H
#define BITNODE_SIGN_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"

/* Core's MessageVerificationResult. */
enum script_message_result {
    SCRIPT_MESSAGE_OK = 0,
    SCRIPT_MESSAGE_ERR_INVALID_ADDRESS,      /* not an address of the chain */
    SCRIPT_MESSAGE_ERR_ADDRESS_NO_KEY,       /* an address, but not P2PKH */
    SCRIPT_MESSAGE_ERR_MALFORMED_SIGNATURE,  /* not base64 */
    SCRIPT_MESSAGE_ERR_PUBKEY_NOT_RECOVERED, /* not 65 bytes, or no key recovers from it */
    SCRIPT_MESSAGE_ERR_NOT_SIGNED,           /* a key recovers, but not the address's */
};

/** Core's MessageHash of msg[0..len) (may hold NUL bytes). */
void script_message_hash(uint8_t out32[32], const char *msg, size_t len);

/** Core's MessageSign: signs msg with the secret key (compressed: the flag of its WIF).
 *  Returns: 0 with *sig_b64 (a new string the caller frees); RC_INVALID if key32 is not a
 *           valid secret key. */
int script_message_sign(char **sig_b64, const uint8_t key32[32], int compressed, const char *msg,
                        size_t len);

/** Core's MessageVerify: whether sig_b64 is a signature of msg by the key of the P2PKH
 *  address on chain p. address and sig_b64 are NUL-terminated. */
enum script_message_result script_message_verify(const char *address, const char *sig_b64,
                                                 const char *msg, size_t len,
                                                 const struct chain_params *p);

#endif
