/* Signature-operation counting for the block limits (Core's GetLegacySigOpCount,
 * GetP2SHSigOpCount, CountWitnessSigOps and GetTransactionSigOpCost). */
#ifndef BITNODE_SCRIPT_SIGOPS_H
#define BITNODE_SCRIPT_SIGOPS_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"

/** Sigops of a P2SH redeem script: script_pubkey is P2SH and script_sig is push-only ->
 *  accurate count of the last push; a non-push scriptSig counts 0; a non-P2SH
 *  script_pubkey is counted accurately itself (Core's GetSigOpCount(scriptSig)). */
unsigned script_p2sh_sigop_count(const uint8_t *script_pubkey, size_t spk_len,
                                 const uint8_t *script_sig, size_t sig_len);

/** Witness sigops of one input (Core's CountWitnessSigOps): P2WPKH 1, P2WSH the accurate
 *  count of the witness script, P2SH-wrapped alike, taproot and others 0. */
size_t script_witness_sigop_count(const uint8_t *script_sig, size_t sig_len,
                                  const uint8_t *script_pubkey, size_t spk_len,
                                  const struct bytes *witness, size_t witness_count,
                                  uint32_t flags);

/** Legacy sigops of a transaction: every scriptSig and scriptPubKey, inaccurately. */
unsigned tx_sigops_legacy(const struct tx *tx);
/** P2SH sigops of a transaction given the outputs it spends (0 for a coinbase). */
unsigned tx_sigops_p2sh(const struct tx *tx, const struct tx_out *spent);
/** Sigop cost (legacy*4 + p2sh*4 when P2SH is in flags + witness sigops). spent may be NULL
 *  only for a coinbase. */
int64_t tx_sigop_cost(const struct tx *tx, const struct tx_out *spent, uint32_t flags);

#endif
