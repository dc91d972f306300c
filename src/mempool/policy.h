/* Standardness: the rules a node applies to loose transactions on top of consensus, as
 * Bitcoin Core's policy/policy.cpp (IsStandardTx, ValidateInputsStandardness,
 * IsWitnessStandard, the dust threshold, the sigop-adjusted virtual size) with Core's
 * defaults and reject reasons. Pure: no I/O, no state. */
#ifndef BITNODE_MEMPOOL_POLICY_H
#define BITNODE_MEMPOOL_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"

#define POLICY_MAX_STANDARD_TX_WEIGHT 400000
#define POLICY_MIN_STANDARD_TX_NONWITNESS_SIZE 65
#define POLICY_MAX_P2SH_SIGOPS 15
#define POLICY_MAX_STANDARD_TX_SIGOPS_COST 16000
#define POLICY_MAX_TX_LEGACY_SIGOPS 2500
#define POLICY_MAX_STANDARD_SCRIPTSIG_SIZE 1650
#define POLICY_MAX_DUST_OUTPUTS_PER_TX 1
#define POLICY_DEFAULT_MIN_RELAY_TX_FEE 100      /* sat/kvB */
#define POLICY_DEFAULT_INCREMENTAL_RELAY_FEE 100 /* sat/kvB */
#define POLICY_DUST_RELAY_TX_FEE 3000            /* sat/kvB */
#define POLICY_DEFAULT_BYTES_PER_SIGOP 20
#define POLICY_DEFAULT_BLOCK_MIN_TX_FEE 1 /* sat/kvB */
#define POLICY_MAX_OP_RETURN_RELAY (POLICY_MAX_STANDARD_TX_WEIGHT / 4)
#define POLICY_TX_MAX_STANDARD_VERSION 3
#define POLICY_TRUC_VERSION 3
#define POLICY_TRUC_MAX_VSIZE 10000
#define POLICY_TRUC_CHILD_MAX_VSIZE 1000

/* The script flags a loose transaction is checked with (Core's STANDARD_SCRIPT_VERIFY_FLAGS)
 * and the subset that is consensus (MANDATORY_SCRIPT_VERIFY_FLAGS). */
uint32_t policy_standard_script_flags(void);
uint32_t policy_mandatory_script_flags(void);

/* A fee rate in satoshis per 1000 virtual bytes (Core's CFeeRate). */
/** The fee for vsize bytes at rate_kvb (Core's CFeeRate::GetFee: truncated, and at least 1
 *  satoshi when the rate is positive and the result would round to 0). */
int64_t policy_fee_at(int64_t rate_kvb, int64_t vsize);

/** Core's GetDustThreshold: the value below which out is dust at dust_rate_kvb (0 for an
 *  unspendable output). */
int64_t policy_dust_threshold(const struct tx_out *out, int64_t dust_rate_kvb);

/** Core's GetVirtualTransactionSize: max(weight, sigop_cost * bytes_per_sigop) / 4, rounded
 *  up. */
int64_t policy_vsize(int64_t weight, int64_t sigop_cost, unsigned bytes_per_sigop);

/** Core's IsStandardTx. max_datacarrier: the bytes of OP_RETURN outputs allowed in all
 *  (-1: none, -datacarrier=0). Returns 1, or 0 with reason (static string) set: "version",
 *  "tx-size", "scriptsig-size", "scriptsig-not-pushonly", "scriptpubkey", "datacarrier",
 *  "bare-multisig", "dust". */
int policy_is_standard_tx(const struct tx *tx, int64_t max_datacarrier, int permit_bare_multisig,
                          int64_t dust_rate_kvb, const char **reason);

/** Core's ValidateInputsStandardness: spent holds the output each input spends. Returns 1,
 *  or 0 with detail (Core's debug text, e.g. "input 0 script unknown") written; the reject
 *  reason is then "bad-txns-nonstandard-inputs". */
int policy_inputs_standard(const struct tx *tx, const struct tx_out *spent, char *detail,
                           size_t detail_len);

/** Core's IsWitnessStandard (reject "bad-witness-nonstandard" when 0). */
int policy_witness_standard(const struct tx *tx, const struct tx_out *spent);

/** Core's SpendsNonAnchorWitnessProg: whether a witness-stripped tx could be the reason a
 *  script check failed. */
int policy_spends_witness_program(const struct tx *tx, const struct tx_out *spent);

/** Number of dust outputs of tx at dust_rate_kvb. */
size_t policy_dust_count(const struct tx *tx, int64_t dust_rate_kvb);

#endif
