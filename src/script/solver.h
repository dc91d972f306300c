/* Output script templates (Core's Solver / GetTxnOutputType), for decodescript and for
 * callers that need to know what kind of output a scriptPubKey is. */
#ifndef BITNODE_SCRIPT_SOLVER_H
#define BITNODE_SCRIPT_SOLVER_H

#include <stddef.h>
#include <stdint.h>

enum script_type {
    SCRIPT_TYPE_NONSTANDARD = 0,
    SCRIPT_TYPE_PUBKEY,
    SCRIPT_TYPE_PUBKEYHASH,
    SCRIPT_TYPE_SCRIPTHASH,
    SCRIPT_TYPE_MULTISIG,
    SCRIPT_TYPE_NULL_DATA,
    SCRIPT_TYPE_WITNESS_V0_KEYHASH,
    SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH,
    SCRIPT_TYPE_WITNESS_V1_TAPROOT,
    SCRIPT_TYPE_WITNESS_UNKNOWN,
    SCRIPT_TYPE_ANCHOR,
};

/** Classifies a scriptPubKey as Core's Solver does. For MULTISIG, *required and *keys
 *  (may be NULL) receive m and n; otherwise they are left alone. */
enum script_type script_solve(const uint8_t *script, size_t len, int *required, int *keys);

/** The keys of a script script_solve() classified as multisig: pointers and lengths into the
 *  script (at most MAX_PUBKEYS_PER_MULTISIG, *count of them), and *m the number required. */
void script_multisig_keys(const uint8_t *s, size_t len, int *m, const uint8_t **keys,
                          size_t *key_lens, int *count);
/** CPubKey::IsCompressed for a key of n bytes. */
int script_pubkey_is_compressed(const uint8_t *k, size_t n);

/** Core's GetTxnOutputType names: "pubkeyhash", "witness_v1_taproot", "nonstandard"... */
const char *script_type_name(enum script_type t);

#endif
