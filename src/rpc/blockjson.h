/* Blocks, transactions and scripts as Bitcoin Core's RPC prints them (core_write.cpp's
 * ScriptToUniv / TxToUniv, rpc/blockchain.cpp's blockheaderToJSON / blockToJSON,
 * rpc/rawtransaction.cpp's decodescript), field for field and in Core's key order, so that
 * operators can diff our answers against Core's.
 *
 * Pure functions: everything that depends on the chain (height, confirmations, chain work,
 * median time, the next block, the outputs an input spends) is given by the caller. Amounts
 * are made with rpc_json_amount() (rpc/json.h), so print the results with rpc_json_write() /
 * rpc_json_dumps() to get Core's "0.10000000" amounts and its 16-digit reals.
 */
#ifndef BITNODE_RPC_BLOCKJSON_H
#define BITNODE_RPC_BLOCKJSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "coins/coin.h"
#include "coins/undo.h"
#include "consensus/arith256.h"
#include "consensus/params.h"
#include "primitives/block.h"
#include "primitives/tx.h"
#include "util/buf.h"

/* Core's TxVerbosity, numbered as getblock's verbosity argument. */
#define RPC_VERBOSITY_TXID 1    /* getblock: "tx" lists txids */
#define RPC_VERBOSITY_DETAILS 2 /* full transactions, "fee" when spent outputs are known */
#define RPC_VERBOSITY_PREVOUT 3 /* ... and each input's "prevout" */

/** Core's ScriptToAsmStr: opcode names, pushes of at most 4 bytes as numbers, longer pushes
 *  as hex, "[error]" at a bad push. With sighash_decode (scriptSigs), a push that is a
 *  strictly DER-encoded signature with a defined hash type prints as hex without the
 *  hash-type byte followed by "[ALL]", "[NONE|ANYONECANPAY]", ... (never in a script that
 *  starts with OP_RETURN). Appends the text and a NUL to out; out->len excludes the NUL. */
void rpc_script_asm(struct buf *out, const uint8_t *script, size_t len, int sighash_decode);

/** A hash in Core's display order (reversed hex), as a new JSON string. */
json_t *rpc_hash_json(const uint8_t hash32[32]);

/** Core's ScriptToUniv(script, include_hex, include_address = true): an object with
 *  "asm", "desc", "hex" (when include_hex), "address" (when the script has one; never for
 *  P2PK) and "type" (nonstandard, pubkey, pubkeyhash, scripthash, multisig, nulldata,
 *  witness_v0_keyhash, witness_v0_scripthash, witness_v1_taproot, anchor, witness_unknown).
 *  Returns a new object (caller owns it). */
json_t *rpc_script_pubkey_json(const uint8_t *spk, size_t len, const struct chain_params *p,
                               int include_hex);

/** Core's TxToUniv: txid, hash, version, size, vsize, weight, locktime, vin, vout, then
 *  "fee" (when spent is given) and "hex" (when include_hex).
 *
 *  In:  spent: NULL, or tx->vin_count coins, the outputs the inputs spend in input order
 *       (a block's undo data for this transaction). Ignored for a coinbase, which has
 *       none. With spent, "fee" = inputs - outputs is added (left out if that is not a
 *       valid amount, which only corrupt data can cause); with spent and verbosity >=
 *       RPC_VERBOSITY_PREVOUT, each input gets "prevout" {generated, height, value,
 *       scriptPubKey}.
 *  Returns a new object (caller owns it). */
json_t *rpc_tx_json(const struct tx *tx, const struct chain_params *p, const struct coin *spent,
                    int verbosity, int include_hex);

/** getrawtransaction's additions after TxToUniv for a transaction found in a block:
 *  "blockhash", then either "confirmations", "time" and "blocktime" (in_active_chain) or
 *  "confirmations": 0.
 *  In: block_hash32: internal byte order. */
void rpc_tx_json_add_block(json_t *tx_obj, const uint8_t block_hash32[32], int in_active_chain,
                           int confirmations, int64_t block_time);

/* What the block index knows about a block that is not in the block itself. */
struct rpc_block_facts {
    int height;
    int confirmations;     /* 1 + tip height - height on the active chain, else -1 */
    int64_t median_time;   /* median time past of the block (its own and 10 ancestors) */
    struct u256 chainwork; /* total work of the chain up to and including the block */
    uint64_t n_tx;         /* number of transactions (Core's nTx) */
    int has_next;          /* a successor on the active chain exists */
    uint8_t next_hash[32]; /* its hash, internal order, when has_next */
};

/** Core's GetDifficulty: the difficulty of bits relative to 0x1d00ffff, as a double. */
double rpc_difficulty(uint32_t bits);

/** Core's blockheaderToJSON: hash, confirmations, height, version, versionHex, merkleroot,
 *  time, mediantime, nonce, bits, target, difficulty, chainwork, nTx, previousblockhash
 *  (unless height 0), nextblockhash (when facts->has_next). "target" is the target bits
 *  encode; bits that are negative, zero, overflowing or above the chain's limit (which an
 *  accepted header never has, and where Core's RPC fails an assertion) print p->pow_limit.
 *  Returns a new object (caller owns it). */
json_t *rpc_block_header_json(const struct block_header *h, const struct rpc_block_facts *facts,
                              const struct chain_params *p);

/** Core's blockToJSON (getblock with verbosity 1, 2 or 3): the header fields, then
 *  strippedsize, size, weight, coinbase_tx {version, locktime, sequence, coinbase,
 *  witness (when present)}, and tx: txids (RPC_VERBOSITY_TXID) or rpc_tx_json objects
 *  with "hex" (DETAILS, PREVOUT).
 *
 *  In:  undo: NULL, or the block's undo data (one entry per non-coinbase transaction, one
 *       coin per input), which adds "fee" and, at RPC_VERBOSITY_PREVOUT, "prevout".
 *  Returns: a new object (caller owns it); NULL if, at DETAILS or PREVOUT, undo does not
 *           match the block's shape (Core answers "Undo data expected but can't be read"
 *           there). At RPC_VERBOSITY_TXID undo is not used.
 */
json_t *rpc_block_json(const struct block *b, const struct rpc_block_facts *facts,
                       const struct block_undo *undo, const struct chain_params *p, int verbosity);

/** decodescript's result: asm, desc, address (when any), type, then "p2sh" (the P2SH
 *  address of the script, when Core allows wrapping it) and "segwit" {asm, desc, hex,
 *  address, type, p2sh-segwit} (P2WPKH for a key or key hash, else P2WSH, when Core allows
 *  it). Returns a new object (caller owns it).
 *  Not matched: Core infers miniscript descriptors ("wsh(and_v(...))") for P2WSH scripts
 *  that are sane miniscript; here those get "addr(...)" like other unknown P2WSH scripts. */
json_t *rpc_decodescript_json(const uint8_t *script, size_t len, const struct chain_params *p);

#endif
