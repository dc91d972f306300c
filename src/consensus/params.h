/* Chain parameters for the five networks bitnode knows: main, testnet3, testnet4, signet
 * (the default, global signet) and regtest.
 *
 * Values are Bitcoin Core's (src/kernel/chainparams.cpp, src/validation.cpp for the BIP30
 * exceptions, src/chainparamsbase.cpp for RPC ports), taken from Core's master of September
 * 2025 (commit 284c42a3). minimum_chain_work and default_assume_valid are refreshed by Core
 * every release; they are "known good" hints, not consensus rules.
 *
 * The parameter sets are built once, on the first call to chain_params_get() (thread-safe):
 * the genesis block is constructed from its fields (coinbase transaction, merkle root = its
 * txid, header) and hashed, exactly as Core's CreateGenesisBlock does, and the signet
 * message start is derived from the challenge. After that the structs are immutable and may
 * be read from any thread.
 */
#ifndef BITNODE_CONSENSUS_PARAMS_H
#define BITNODE_CONSENSUS_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/arith256.h"
#include "primitives/block.h"

enum chain_id {
    CHAIN_MAIN = 0,
    CHAIN_TESTNET3 = 1,
    CHAIN_TESTNET4 = 2,
    CHAIN_SIGNET = 3,
    CHAIN_REGTEST = 4,
};
#define CHAIN_COUNT 5

/* Core's COINBASE_MATURITY: a coinbase output can be spent only this many blocks later. */
#define COINBASE_MATURITY 100

/* Script verification flag bits used by the exception table below. They are Bitcoin Core's
 * SCRIPT_VERIFY_* bit values (P2SH = bit 0, WITNESS = bit 11); the script layer's flags must
 * use the same numbering (a static assertion there is advised). */
#define CHAIN_SCRIPT_VERIFY_NONE 0u
#define CHAIN_SCRIPT_VERIFY_P2SH (1u << 0)
#define CHAIN_SCRIPT_VERIFY_WITNESS (1u << 11)

/* Base58Check version prefixes, Core's CChainParams::Base58Type. */
enum base58_type {
    BASE58_PUBKEY_ADDRESS = 0,
    BASE58_SCRIPT_ADDRESS = 1,
    BASE58_SECRET_KEY = 2,
    BASE58_EXT_PUBLIC_KEY = 3,
    BASE58_EXT_SECRET_KEY = 4,
};
#define BASE58_TYPE_COUNT 5

struct base58_prefix {
    uint8_t bytes[4];
    size_t len; /* 1 for addresses and keys, 4 for extended keys */
};

/* A block whose scripts are checked with exactly `flags` instead of the flags its height
 * would give (Core's consensus.script_flag_exceptions). */
struct chain_script_exception {
    const char *hash_hex; /* display order */
    uint8_t hash[32];     /* internal order, filled at init */
    uint32_t flags;       /* CHAIN_SCRIPT_VERIFY_* bits */
};

/* A UTXO set the chain vouches for (Core's AssumeutxoData): loadtxoutset accepts a snapshot
 * only at one of these blocks, and only with this content hash. */
struct chain_assumeutxo {
    int height;
    const char *hash_serialized_hex; /* gettxoutsetinfo's hash_serialized_3, display order */
    uint64_t chain_tx;               /* transactions in the chain up to and with the block */
    const char *blockhash_hex;       /* display order */
};

/* A block allowed to overwrite unspent outputs of an earlier duplicate coinbase (BIP30's two
 * historical mainnet exceptions; Core checks height and hash together). */
struct chain_bip30_exception {
    int height;
    const char *hash_hex; /* display order */
    uint8_t hash[32];     /* internal order, filled at init */
};

/* A version-bits deployment (BIP9; Core's Consensus::BIP9Deployment): miners signal with
 * bit `bit` of the block version during periods of `period` blocks; `threshold` signalling
 * blocks in one period lock it in. Its state machine is consensus/versionbits.h. */
#define CHAIN_BIP9_ALWAYS_ACTIVE (-1)   /* start_time: active from genesis (Core's ALWAYS_ACTIVE) */
#define CHAIN_BIP9_NEVER_ACTIVE (-2)    /* start_time: can never activate, not listed by RPC */
#define CHAIN_BIP9_NO_TIMEOUT INT64_MAX /* timeout: never fails */

struct chain_bip9_deployment {
    const char *name;          /* Core's VersionBitsDeploymentInfo name: "testdummy" */
    int bit;                   /* 0..28 */
    int64_t start_time;        /* median time past at which the bit gains its meaning, or one
                                  of CHAIN_BIP9_ALWAYS_ACTIVE / _NEVER_ACTIVE */
    int64_t timeout;           /* median time past at which a deployment not locked in fails */
    int min_activation_height; /* a locked-in deployment activates no earlier */
    int period;                /* blocks per signalling period */
    int threshold;             /* signalling blocks per period that lock it in */
};

/* Core's DeploymentPos: the version-bits deployments, in Core's order. Core has only its test
 * deployment now (taproot is enforced from genesis, the others are buried). */
enum chain_deployment {
    CHAIN_DEPLOYMENT_TESTDUMMY = 0,
};
#define CHAIN_DEPLOYMENT_COUNT 1

/* What Core's CreateGenesisBlock is given. */
struct chain_genesis_spec {
    const char *timestamp;         /* the message pushed in the coinbase scriptSig */
    const char *output_pubkey_hex; /* the key of the single <pubkey> OP_CHECKSIG output */
    uint32_t time;
    uint32_t nonce;
    uint32_t bits;
    int32_t version;
    int64_t reward_sat;
};

/* The longest signet challenge script accepted (Core has no limit; a script longer than this
 * could not be spent within the standard limits anyway). */
#define CHAIN_SIGNET_CHALLENGE_MAX 1650

struct chain_params {
    enum chain_id id;
    const char *name;           /* Core's -chain= name: main, test, testnet4, signet, regtest */
    const char *datadir_subdir; /* "", "testnet3", "testnet4", "signet", "regtest" */
    uint8_t magic[4];           /* P2P message start and block-file record marker */
    uint16_t default_port;      /* P2P */
    uint16_t rpc_port;

    struct chain_genesis_spec genesis_spec;
    struct block_header genesis_header; /* filled at init */
    uint8_t genesis_hash[32];           /* computed at init, internal order */
    const char *genesis_hash_hex;       /* the well-known hash; init aborts if the computed
                                           one differs (Core asserts the same) */

    /* Proof of work. */
    const char *pow_limit_hex;           /* display order */
    struct u256 pow_limit;               /* filled at init */
    uint32_t pow_limit_bits;             /* pow_limit as compact, filled at init */
    int64_t pow_target_spacing;          /* seconds per block: 600 */
    int64_t pow_target_timespan;         /* seconds per retarget period: 14 days (regtest: 1 day) */
    int pow_allow_min_difficulty_blocks; /* testnet 20-minute rule */
    int pow_no_retargeting;              /* regtest */
    int enforce_bip94;                   /* testnet4: timewarp fix, retarget from first block */

    int subsidy_halving_interval;
    int coinbase_maturity;
    int prune_after_height; /* no automatic pruning at or below this tip height (Core's
                               nPruneAfterHeight; regtest with -fastprune: 100) */
    /* Core's ChainTxData, for verificationprogress: a known block's time and chain
     * transaction count, and the rate of transactions per second after it. */
    int64_t chain_tx_time;
    uint64_t chain_tx_count;
    double chain_tx_rate;

    /* Buried deployments: first height at which the rule applies. */
    int bip34_height;           /* height in coinbase */
    const char *bip34_hash_hex; /* block at bip34_height, or all zeros when it is not known */
    uint8_t bip34_hash[32];     /* filled at init */
    int bip65_height;           /* OP_CHECKLOCKTIMEVERIFY */
    int bip66_height;           /* strict DER signatures */
    int csv_height;             /* BIP68/112/113 */
    int segwit_height;          /* BIP141/143/147 */
    int taproot_height;         /* BIP341/342, informational: Core enforces the taproot script
                                   rules on every block except the script exceptions */

    /* Version-bits deployments (Core's consensus.vDeployments). */
    struct chain_bip9_deployment deployments[CHAIN_DEPLOYMENT_COUNT];
    /* Blocks below this height never count towards the unknown-versionbits warning (Core's
     * MinBIP9WarningHeight: taproot's activation plus a period on mainnet and testnet3). */
    int min_bip9_warning_height;

    const struct chain_script_exception *script_exceptions;
    size_t script_exception_count;
    const struct chain_bip30_exception *bip30_exceptions;
    size_t bip30_exception_count;

    /* The UTXO snapshots loadtxoutset accepts, by height (Core's m_assumeutxo_data). */
    const struct chain_assumeutxo *assumeutxo;
    size_t assumeutxo_count;

    /* Anti-DoS and speed-up hints (display-order hex; all zero for regtest). */
    const char *minimum_chain_work_hex;
    struct u256 minimum_chain_work; /* filled at init */
    const char *default_assume_valid_hex;
    uint8_t default_assume_valid[32]; /* filled at init, internal order; zero = none */

    /* Addresses. */
    const char *bech32_hrp;
    struct base58_prefix base58[BASE58_TYPE_COUNT];

    /* Signet (BIP325): blocks carry a solution to this challenge script. */
    int signet_blocks;
    const char *signet_challenge_hex; /* the built-in challenge; NULL for a custom signet */
    uint8_t signet_challenge[CHAIN_SIGNET_CHALLENGE_MAX]; /* filled at init */
    size_t signet_challenge_len;
};

/** A custom signet (-signetchallenge): the default signet's parameters (genesis block, proof
 *  of work limit, deployments) with challenge as its block challenge, the message start
 *  derived from it, and no minimum chain work nor assumed-valid block, as Core's
 *  SigNetParams with a challenge. out is the caller's.
 *  Returns 0, or RC_TOO_LARGE when challenge is longer than CHAIN_SIGNET_CHALLENGE_MAX. */
int chain_params_signet_custom(struct chain_params *out, const uint8_t *challenge, size_t len);

/** Returns the parameters for a chain name: Core's -chain= spellings "main", "test",
 *  "testnet4", "signet", "regtest"; "testnet3" is accepted as a synonym of "test".
 *  Returns NULL for an unknown name. The result is static and immutable. */
const struct chain_params *chain_params_get(const char *name);
/** A chain option as the programs take it, without its dashes: "chain=NAME" or a shorthand,
 *  "regtest", "testnet" (for test), "testnet4", "signet". Returns 0 if opt is none of them;
 *  else 1 with *name the chain name it gives and *out its parameters (NULL: no such chain). */
int chain_params_option(const char *opt, const struct chain_params **out, const char **name);
/** The built-in chain whose network magic is magic (Core's GetNetworkForMagic), or NULL. */
const struct chain_params *chain_params_by_magic(const uint8_t magic[4]);
/** Returns the parameters of a chain by id (never NULL for a valid id). */
const struct chain_params *chain_params_by_id(enum chain_id id);

/** The snapshot p vouches for at the block hash32 (internal order), or NULL. */
const struct chain_assumeutxo *chain_params_assumeutxo_for_hash(const struct chain_params *p,
                                                                const uint8_t hash32[32]);
/** The snapshot p vouches for at height, or NULL. */
const struct chain_assumeutxo *chain_params_assumeutxo_for_height(const struct chain_params *p,
                                                                  int height);

/** Blocks per retarget period: pow_target_timespan / pow_target_spacing (2016; regtest 144). */
static inline int chain_params_retarget_interval(const struct chain_params *p)
{
    return (int)(p->pow_target_timespan / p->pow_target_spacing);
}

/** Builds the genesis block of p (one coinbase transaction), as Core's CreateGenesisBlock.
 *  Out: b: uninitialised or empty on entry; caller owns it (block_clear). Its hash, sizes
 *       and transaction hashes are filled. */
void chain_params_genesis_block(struct block *b, const struct chain_params *p);

/** Looks up a block in p's script-flag exceptions.
 *  Returns 1 with *flags set if hash32 (internal order) is an exception, else 0. */
int chain_params_script_exception(const struct chain_params *p, const uint8_t hash32[32],
                                  uint32_t *flags);
/** Returns 1 if the block (height, hash32 in internal order) is one of p's BIP30
 *  exceptions, else 0. */
int chain_params_is_bip30_exception(const struct chain_params *p, int height,
                                    const uint8_t hash32[32]);

#endif
