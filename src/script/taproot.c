/* Taproot's and tapscript's own pieces (BIP341, BIP342): the OP_SUCCESSx opcodes, the
 * TapLeaf and TapBranch tagged hashes, and the merkle root a control block proves. Declared
 * in interpreter.h; verify.c's script-path spend uses them. */
#include "script/interpreter.h"

#include <string.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "script/script.h"
#include "util/buf.h"

int script_is_op_success(uint8_t op)
{
    return op == 80 || op == 98 || (op >= 126 && op <= 129) || (op >= 131 && op <= 134) ||
           (op >= 137 && op <= 138) || (op >= 141 && op <= 142) || (op >= 149 && op <= 153) ||
           (op >= 187 && op <= 254);
}

void script_tapleaf_hash(uint8_t out32[32], uint8_t leaf_version, const uint8_t *script, size_t len)
{
    struct hash_sha256_ctx h;
    struct buf b;
    buf_init(&b);
    buf_put_u8(&b, leaf_version);
    ser_put_compact(&b, len);
    hash_tagged_init(&h, "TapLeaf");
    hash_sha256_write(&h, b.data, b.len);
    hash_sha256_write(&h, script, len);
    hash_sha256_final(&h, out32);
    buf_clear(&b);
}

void script_tapbranch_hash(uint8_t out32[32], const uint8_t a32[32], const uint8_t b32[32])
{
    struct hash_sha256_ctx h;
    hash_tagged_init(&h, "TapBranch");
    if (memcmp(a32, b32, 32) < 0) {
        hash_sha256_write(&h, a32, 32);
        hash_sha256_write(&h, b32, 32);
    } else {
        hash_sha256_write(&h, b32, 32);
        hash_sha256_write(&h, a32, 32);
    }
    hash_sha256_final(&h, out32);
}

void script_taproot_merkle_root(uint8_t out32[32], const uint8_t *control, size_t control_len,
                                const uint8_t leaf32[32])
{
    uint8_t k[32];
    memcpy(k, leaf32, 32);
    size_t path_len = (control_len - TAPROOT_CONTROL_BASE_SIZE) / TAPROOT_CONTROL_NODE_SIZE;
    for (size_t i = 0; i < path_len; i++) {
        const uint8_t *node = control + TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * i;
        script_tapbranch_hash(k, k, node);
    }
    memcpy(out32, k, 32);
}
