/* Context-free transaction rules and finality (Core's consensus/tx_check.cpp and
 * IsFinalTx), and the BIP34 coinbase height push. Pure functions. */
#ifndef BITNODE_CONSENSUS_TX_CHECK_H
#define BITNODE_CONSENSUS_TX_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/vstate.h"
#include "primitives/tx.h"

#define MAX_BLOCK_WEIGHT 4000000
#define MAX_BLOCK_SIGOPS_COST 80000

/** Core's CheckTransaction: inputs and outputs present, stripped size within the block
 *  weight, output values in range each and in total, no duplicate inputs, a coinbase
 *  scriptSig of 2..100 bytes, no null prevout outside a coinbase.
 *  Returns 0, or RC_INVALID with s filled ("bad-txns-vin-empty", "bad-txns-vout-empty",
 *  "bad-txns-oversize", "bad-txns-vout-negative", "bad-txns-vout-toolarge",
 *  "bad-txns-txouttotal-toolarge", "bad-txns-inputs-duplicate", "bad-cb-length",
 *  "bad-txns-prevout-null"). */
int consensus_check_tx(struct vstate *s, const struct tx *tx);

/** Core's IsFinalTx: 1 if tx may be in a block at height whose lock-time cutoff is
 *  cutoff_time (the previous block's median time past once BIP113 is active, else the
 *  block's own time). */
int consensus_tx_is_final(const struct tx *tx, int height, int64_t cutoff_time);

/** Writes the script Core's `CScript() << height` produces (the BIP34 coinbase prefix):
 *  OP_0, OP_1..OP_16, or a minimal CScriptNum push. Returns its length (<= 6). */
size_t consensus_height_push(uint8_t out[6], int64_t height);

#endif
