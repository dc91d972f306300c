/* Bitcoin Signed Message (see message.h). */
#include "sign/message.h"

#include <string.h>

#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "script/sigcheck.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const char MESSAGE_MAGIC[] = "Bitcoin Signed Message:\n";

void script_message_hash(uint8_t out32[32], const char *msg, size_t len)
{
    struct buf b;
    buf_init(&b);
    ser_put_compact(&b, sizeof(MESSAGE_MAGIC) - 1);
    buf_append(&b, MESSAGE_MAGIC, sizeof(MESSAGE_MAGIC) - 1);
    ser_put_compact(&b, len);
    buf_append(&b, msg, len);
    hash_sha256d(out32, b.data, b.len);
    buf_clear(&b);
}

int script_message_sign(char **sig_b64, const uint8_t key32[32], int compressed, const char *msg,
                        size_t len)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_ecdsa_recoverable_signature rs;
    uint8_t hash[32], sig[65];
    int recid = -1;

    if (!secp256k1_ec_seckey_verify(ctx, key32)) {
        return RC_INVALID;
    }
    script_message_hash(hash, msg, len);
    /* A NULL nonce function is RFC 6979, as Core's SignCompact. */
    CHECK_ALWAYS(secp256k1_ecdsa_sign_recoverable(ctx, &rs, hash, key32, NULL, NULL) == 1);
    secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, sig + 1, &recid, &rs);
    CHECK_ALWAYS(recid >= 0 && recid <= 3);
    sig[0] = (uint8_t)(27 + recid + (compressed ? 4 : 0));
    *sig_b64 = base64_encode(sig, sizeof(sig));
    return RC_OK;
}

enum script_message_result script_message_verify(const char *address, const char *sig_b64,
                                                 const char *msg, size_t len,
                                                 const struct chain_params *p)
{
    const secp256k1_context *ctx = script_secp_ctx();
    enum script_message_result r;
    struct buf spk, sig;
    buf_init(&spk);
    buf_init(&sig);

    if (address_to_script(&spk, address, p) != RC_OK) {
        r = SCRIPT_MESSAGE_ERR_INVALID_ADDRESS;
        goto out;
    }
    /* P2PKH: OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG. */
    if (spk.len != 25 || spk.data[0] != 0x76 || spk.data[1] != 0xa9) {
        r = SCRIPT_MESSAGE_ERR_ADDRESS_NO_KEY;
        goto out;
    }
    if (base64_decode(&sig, sig_b64) != RC_OK) {
        r = SCRIPT_MESSAGE_ERR_MALFORMED_SIGNATURE;
        goto out;
    }
    r = SCRIPT_MESSAGE_ERR_PUBKEY_NOT_RECOVERED;
    if (sig.len != 65) {
        goto out;
    }
    /* Core's RecoverCompact: the header's low bits give the recovery id and compression,
     * whatever its range. */
    int recid = (sig.data[0] - 27) & 3, compressed = ((sig.data[0] - 27) & 4) != 0;
    uint8_t hash[32], pub[65], h160[20];
    size_t pub_len = compressed ? 33 : 65;
    secp256k1_ecdsa_recoverable_signature rs;
    secp256k1_pubkey pk;
    if (!secp256k1_ecdsa_recoverable_signature_parse_compact(ctx, &rs, sig.data + 1, recid)) {
        goto out;
    }
    script_message_hash(hash, msg, len);
    if (!secp256k1_ecdsa_recover(ctx, &pk, &rs, hash)) {
        goto out;
    }
    secp256k1_ec_pubkey_serialize(ctx, pub, &pub_len, &pk,
                                  compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED);
    hash_hash160(h160, pub, pub_len);
    r = memcmp(h160, spk.data + 3, 20) == 0 ? SCRIPT_MESSAGE_OK : SCRIPT_MESSAGE_ERR_NOT_SIGNED;
out:
    buf_clear(&spk);
    buf_clear(&sig);
    return r;
}
