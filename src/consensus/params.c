/* Chain parameters (Bitcoin Core's chainparams.cpp, see params.h for the source version). */
#include "consensus/params.h"

#include <pthread.h>
#include <string.h>

#include "consensus/amount.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define ZERO_HASH_HEX "0000000000000000000000000000000000000000000000000000000000000000"

static const char satoshi_timestamp[] =
    "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks";
static const char satoshi_pubkey_hex[] =
    "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51e"
    "c112de5c384df7ba0b8d578a4c702b6bf11d5f";

/* clang-format off */
/* Core's script_flag_exceptions. */
static struct chain_script_exception main_script_exceptions[] = {
    /* BIP16 exception: block 170060, mined after the P2SH switch-over with a spend that is
     * invalid under P2SH rules. */
    {"00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22", {0},
     CHAIN_SCRIPT_VERIFY_NONE},
    /* Taproot exception: block 692261 spends a pre-activation output against taproot rules. */
    {"0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad", {0},
     CHAIN_SCRIPT_VERIFY_P2SH | CHAIN_SCRIPT_VERIFY_WITNESS},
};

static struct chain_script_exception testnet3_script_exceptions[] = {
    /* BIP16 exception. */
    {"00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105", {0},
     CHAIN_SCRIPT_VERIFY_NONE},
};

/* validation.cpp, ConnectBlock: the two mainnet blocks whose coinbases duplicate earlier
 * unspent coinbases (d5d27987... of 91812 and e3bf3d07... of 91722). */
static struct chain_bip30_exception main_bip30_exceptions[] = {
    {91842, "00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec", {0}},
    {91880, "00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721", {0}},
};

/* Core's m_assumeutxo_data, chain by chain. */
static const struct chain_assumeutxo main_assumeutxo[] = {
    {840000, "a2a5521b1b5ab65f67818e5e8eccabb7171a517f9e2382208f77687310768f96", 991032194,
     "0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5"},
    {880000, "dbd190983eaf433ef7c15f78a278ae42c00ef52e0fd2a54953782175fbadcea9", 1145604538,
     "000000000000000000010b17283c3c400507969a9c2afd1dcf2082ec5cca2880"},
    {910000, "4daf8a17b4902498c5787966a2b51c613acdab5df5db73f196fa59a4da2f1568", 1226586151,
     "0000000000000000000108970acb9522ffd516eae17acddcb1bd16469194a821"},
    {935000, "e4b90ef9eae834f56c4b64d2d50143cee10ad87994c614d7d04125e2a6025050", 1305397408,
     "0000000000000000000147034958af1652b2b91bba607beacc5e72a56f0fb5ee"},
};

static const struct chain_assumeutxo testnet3_assumeutxo[] = {
    {2500000, "f841584909f68e47897952345234e37fcd9128cd818f41ee6c3ca68db8071be7", 66484552,
     "0000000000000093bcb68c03a9a168ae252572d348a2eaeba2cdf9231d73206f"},
    {4840000, "ce6bb677bb2ee9789c4a1c9d73e6683c53fc20e8fdbedbdaaf468982a0c8db2a", 536078574,
     "00000000000000f4971a7fb37fbdff89315b69a2e1920c467654a382f0d64786"},
};

static const struct chain_assumeutxo testnet4_assumeutxo[] = {
    {90000, "784fb5e98241de66fdd429f4392155c9e7db5c017148e66e8fdbc95746f8b9b5", 11347043,
     "0000000002ebe8bcda020e0dd6ccfbdfac531d2f6a81457191b99fc2df2dbe3b"},
    {120000, "10b05d05ad468d0971162e1b222a4aa66caca89da2bb2a93f8f37fb29c4794b0", 14141057,
     "000000000bd2317e51b3c5794981c35ba894ce27d3e772d5c39ecd9cbce01dc8"},
};

static const struct chain_assumeutxo signet_assumeutxo[] = {
    {160000, "fe0a44309b74d6b5883d246cb419c6221bcccf0b308c9b59b7d70783dbdf928a", 2289496,
     "0000003ca3c99aff040f2563c2ad8f8ec88bd0fd6b8f0895cfaf1ef90353a62c"},
    {290000, "97267e000b4b876800167e71b9123f1529d13b14308abec2888bbd2160d14545", 28547497,
     "0000000577f2741bb30cd9d39d6d71b023afbeb9764f6260786a97969d5c9ac0"},
};

/* Core's regtest entries: 110 and 200 are its unit tests' and fuzz target's chains, 299 the
 * chain its functional test feature_assumeutxo builds (test/data/regtest-assumeutxo). */
static const struct chain_assumeutxo regtest_assumeutxo[] = {
    {110, "86e9a1205b418b16dde3a18a78c730e30137e28466bda5dbf6b33ab8fc05447c", 111,
     "135eec25a6fb277884e5824e7aa7d052c4868161c99a5122170b5266f86c273d"},
    {200, "17dcc016d188d16068907cdeb38b75691a118d43053b8cd6a25969419381d13a", 201,
     "385901ccbd69dff6bbd00065d01fb8a9e464dede7cfe0372443884f9b1dcf6b9"},
    {299, "106b2c56233e378a824cf0d5ff2be42ed32c72f1605c9be288d00942908a40ac", 334,
     "0c552ced4721c249a389eb9b08cb8da261cd46f0e7b5f9d064d48f3113406853"},
};

#define TESTNET_BASE58                                                                       \
    {                                                                                        \
        [BASE58_PUBKEY_ADDRESS] = {{111}, 1}, [BASE58_SCRIPT_ADDRESS] = {{196}, 1},          \
        [BASE58_SECRET_KEY] = {{239}, 1},                                                    \
        [BASE58_EXT_PUBLIC_KEY] = {{0x04, 0x35, 0x87, 0xCF}, 4},                             \
        [BASE58_EXT_SECRET_KEY] = {{0x04, 0x35, 0x83, 0x94}, 4},                             \
    }

/* Core's DEPLOYMENT_TESTDUMMY: never active except on regtest. */
#define TESTDUMMY(start, threshold_, period_)                                                      \
    [CHAIN_DEPLOYMENT_TESTDUMMY] = {.name = "testdummy", .bit = 28, .start_time = (start),         \
                                    .timeout = CHAIN_BIP9_NO_TIMEOUT, .min_activation_height = 0,  \
                                    .period = (period_), .threshold = (threshold_)}

static struct chain_params g_params[CHAIN_COUNT] = {
    [CHAIN_MAIN] = {
        .id = CHAIN_MAIN,
        .genesis_hash_hex = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        .name = "main",
        .datadir_subdir = "",
        .magic = {0xf9, 0xbe, 0xb4, 0xd9},
        .default_port = 8333,
        .rpc_port = 8332,
        .genesis_spec = {satoshi_timestamp, satoshi_pubkey_hex, 1231006505, 2083236893,
                         0x1d00ffff, 1, 50 * COIN},
        .pow_limit_hex = "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        .pow_target_spacing = 10 * 60,
        .pow_target_timespan = 14 * 24 * 60 * 60,
        .pow_allow_min_difficulty_blocks = 0,
        .pow_no_retargeting = 0,
        .enforce_bip94 = 0,
        .subsidy_halving_interval = 210000,
        .coinbase_maturity = COINBASE_MATURITY,
        .prune_after_height = 100000,
        .chain_tx_time = 1772055173,
        .chain_tx_count = 1315805869,
        .chain_tx_rate = 5.40111006496122,
        .bip34_height = 227931,
        .bip34_hash_hex = "000000000000024b89b42a942fe0d9fea3bb44ab7bd1b19115dd6a759c0808b8",
        /* 000000000000000004c2b624ed5d7756c508d90fd0da2c7c679febfa6c4735f0 */
        .bip65_height = 388381,
        /* 00000000000000000379eaa19dce8c9b722d46ae6a57c2f1a988119488b50931 */
        .bip66_height = 363725,
        /* 000000000000000004a1b34462cb8aeebd5799177f7a29cf28f2d1961716b5b5 */
        .csv_height = 419328,
        /* 0000000000000000001c8018d9cb3b742ef25114f27563e3fc4a1902167f9893 */
        .segwit_height = 481824,
        /* 0000000000000000000687bca986194dc2c1f949318629b44bb54ec0a94d8244 */
        .taproot_height = 709632,
        .min_bip9_warning_height = 711648,
        .deployments = {TESTDUMMY(CHAIN_BIP9_NEVER_ACTIVE, 1815, 2016)},
        .script_exceptions = main_script_exceptions,
        .script_exception_count = ARRAY_LEN(main_script_exceptions),
        .bip30_exceptions = main_bip30_exceptions,
        .bip30_exception_count = ARRAY_LEN(main_bip30_exceptions),
        .assumeutxo = main_assumeutxo,
        .assumeutxo_count = ARRAY_LEN(main_assumeutxo),
        .minimum_chain_work_hex =
            "0000000000000000000000000000000000000000dee8e2a309ad8a9820433c68",
        /* height 912683 */
        .default_assume_valid_hex =
            "00000000000000000000611fd22f2df7c8fbd0688745c3a6c3bb5109cc2a12cb",
        .bech32_hrp = "bc",
        .base58 = {
            [BASE58_PUBKEY_ADDRESS] = {{0}, 1},
            [BASE58_SCRIPT_ADDRESS] = {{5}, 1},
            [BASE58_SECRET_KEY] = {{128}, 1},
            [BASE58_EXT_PUBLIC_KEY] = {{0x04, 0x88, 0xB2, 0x1E}, 4},
            [BASE58_EXT_SECRET_KEY] = {{0x04, 0x88, 0xAD, 0xE4}, 4},
        },
    },
    [CHAIN_TESTNET3] = {
        .id = CHAIN_TESTNET3,
        .genesis_hash_hex = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
        .name = "test",
        .datadir_subdir = "testnet3",
        .magic = {0x0b, 0x11, 0x09, 0x07},
        .default_port = 18333,
        .rpc_port = 18332,
        .genesis_spec = {satoshi_timestamp, satoshi_pubkey_hex, 1296688602, 414098458,
                         0x1d00ffff, 1, 50 * COIN},
        .pow_limit_hex = "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        .pow_target_spacing = 10 * 60,
        .pow_target_timespan = 14 * 24 * 60 * 60,
        .pow_allow_min_difficulty_blocks = 1,
        .pow_no_retargeting = 0,
        .enforce_bip94 = 0,
        .subsidy_halving_interval = 210000,
        .coinbase_maturity = COINBASE_MATURITY,
        .prune_after_height = 1000,
        .chain_tx_time = 1772051651,
        .chain_tx_count = 536108416,
        .chain_tx_rate = 0.02691479016257117,
        .bip34_height = 21111,
        .bip34_hash_hex = "0000000023b3a96d3484e5abb3755c413e7d41500f8e2a5c3f0dd01299cd8ef8",
        /* 00000000007f6655f22f98e72ed80d8b06dc761d5da09df0fa1dc4be4f861eb6 */
        .bip65_height = 581885,
        /* 000000002104c8c45e99a8853285a3b592602a3ccde2b832481da85e9e4ba182 */
        .bip66_height = 330776,
        /* 00000000025e930139bac5c6c31a403776da130831ab85be56578f3fa75369bb */
        .csv_height = 770112,
        /* 00000000002b980fcd729daaa248fd9316a5200e9b367f4ff2c42453e84201ca */
        .segwit_height = 834624,
        /* Core keeps taproot as a BIP9 deployment here (min_activation_height 0), not a buried
         * height. This is the height it became active at as recalled, NOT verified against a
         * testnet3 chain; display only (Core enforces taproot rules from genesis anyway). */
        .taproot_height = 2011968,
        .min_bip9_warning_height = 2013984,
        .deployments = {TESTDUMMY(CHAIN_BIP9_NEVER_ACTIVE, 1512, 2016)},
        .script_exceptions = testnet3_script_exceptions,
        .script_exception_count = ARRAY_LEN(testnet3_script_exceptions),
        .bip30_exceptions = NULL,
        .bip30_exception_count = 0,
        .assumeutxo = testnet3_assumeutxo,
        .assumeutxo_count = ARRAY_LEN(testnet3_assumeutxo),
        .minimum_chain_work_hex =
            "0000000000000000000000000000000000000000000016dd270dd94fac1d7632",
        /* height 4550000 */
        .default_assume_valid_hex =
            "0000000000000065c6c38258e201971a3fdfcc2ceee0dd6e85a6c022d45dee34",
        .bech32_hrp = "tb",
        .base58 = TESTNET_BASE58,
    },
    [CHAIN_TESTNET4] = {
        .id = CHAIN_TESTNET4,
        .genesis_hash_hex = "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
        .name = "testnet4",
        .datadir_subdir = "testnet4",
        .magic = {0x1c, 0x16, 0x3f, 0x28},
        .default_port = 48333,
        .rpc_port = 48332,
        .genesis_spec = {"03/May/2024 "
                         "000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e",
                         "000000000000000000000000000000000000000000000000000000000000000000",
                         1714777860, 393743547, 0x1d00ffff, 1, 50 * COIN},
        .pow_limit_hex = "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        .pow_target_spacing = 10 * 60,
        .pow_target_timespan = 14 * 24 * 60 * 60,
        .pow_allow_min_difficulty_blocks = 1,
        .pow_no_retargeting = 0,
        .enforce_bip94 = 1,
        .subsidy_halving_interval = 210000,
        .coinbase_maturity = COINBASE_MATURITY,
        .prune_after_height = 1000,
        .chain_tx_time = 1772013387,
        .chain_tx_count = 14191421,
        .chain_tx_rate = 0.01848579579528412,
        .bip34_height = 1,
        .bip34_hash_hex = ZERO_HASH_HEX,
        .bip65_height = 1,
        .bip66_height = 1,
        .csv_height = 1,
        .segwit_height = 1,
        .taproot_height = 0, /* ALWAYS_ACTIVE */
        .deployments = {TESTDUMMY(CHAIN_BIP9_NEVER_ACTIVE, 1512, 2016)},
        .assumeutxo = testnet4_assumeutxo,
        .assumeutxo_count = ARRAY_LEN(testnet4_assumeutxo),
        .minimum_chain_work_hex =
            "00000000000000000000000000000000000000000000034a4690fe592dc49c7c",
        /* height 91000 */
        .default_assume_valid_hex =
            "000000000000000180a58e7fa3b0db84b5ea76377524894f53660d93ac839d9b",
        .bech32_hrp = "tb",
        .base58 = TESTNET_BASE58,
    },
    [CHAIN_SIGNET] = {
        .id = CHAIN_SIGNET,
        .genesis_hash_hex = "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
        .name = "signet",
        .datadir_subdir = "signet",
        /* .magic is derived from the challenge at init. */
        .default_port = 38333,
        .rpc_port = 38332,
        .genesis_spec = {satoshi_timestamp, satoshi_pubkey_hex, 1598918400, 52613770,
                         0x1e0377ae, 1, 50 * COIN},
        .pow_limit_hex = "00000377ae000000000000000000000000000000000000000000000000000000",
        .pow_target_spacing = 10 * 60,
        .pow_target_timespan = 14 * 24 * 60 * 60,
        .pow_allow_min_difficulty_blocks = 0,
        .pow_no_retargeting = 0,
        .enforce_bip94 = 0,
        .subsidy_halving_interval = 210000,
        .coinbase_maturity = COINBASE_MATURITY,
        .prune_after_height = 1000,
        .chain_tx_time = 1772055248,
        .chain_tx_count = 28676833,
        .chain_tx_rate = 0.06736623436338929,
        .bip34_height = 1,
        .bip34_hash_hex = ZERO_HASH_HEX,
        .bip65_height = 1,
        .bip66_height = 1,
        .csv_height = 1,
        .segwit_height = 1,
        .taproot_height = 0, /* ALWAYS_ACTIVE */
        .deployments = {TESTDUMMY(CHAIN_BIP9_NEVER_ACTIVE, 1815, 2016)},
        .assumeutxo = signet_assumeutxo,
        .assumeutxo_count = ARRAY_LEN(signet_assumeutxo),
        .minimum_chain_work_hex =
            "0000000000000000000000000000000000000000000000000000067d328e681a",
        /* height 267665 */
        .default_assume_valid_hex =
            "000000128586e26813922680309f04e1de713c7542fee86ed908f56368aefe2e",
        .bech32_hrp = "tb",
        .base58 = TESTNET_BASE58,
        .signet_blocks = 1,
        .signet_challenge_hex =
            "512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021"
            "964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae",
    },
    [CHAIN_REGTEST] = {
        .id = CHAIN_REGTEST,
        .genesis_hash_hex = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
        .name = "regtest",
        .datadir_subdir = "regtest",
        .magic = {0xfa, 0xbf, 0xb5, 0xda},
        .default_port = 18444,
        .rpc_port = 18443,
        .genesis_spec = {satoshi_timestamp, satoshi_pubkey_hex, 1296688602, 2, 0x207fffff, 1,
                         50 * COIN},
        .pow_limit_hex = "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        .pow_target_spacing = 10 * 60,
        .pow_target_timespan = 24 * 60 * 60, /* one day: 144-block periods */
        .pow_allow_min_difficulty_blocks = 1,
        .pow_no_retargeting = 1,
        .enforce_bip94 = 0, /* Core: only with -test=bip94 */
        .subsidy_halving_interval = 150,
        .coinbase_maturity = COINBASE_MATURITY,
        .prune_after_height = 1000,
        .chain_tx_time = 0,
        .chain_tx_count = 0,
        .chain_tx_rate = 0.001,
        .bip34_height = 1,
        .bip34_hash_hex = ZERO_HASH_HEX,
        .bip65_height = 1,
        .bip66_height = 1,
        .csv_height = 1,
        .segwit_height = 0,
        .taproot_height = 0, /* ALWAYS_ACTIVE */
        .deployments = {TESTDUMMY(0, 108, 144)},
        .assumeutxo = regtest_assumeutxo,
        .assumeutxo_count = ARRAY_LEN(regtest_assumeutxo),
        .minimum_chain_work_hex = ZERO_HASH_HEX,
        .default_assume_valid_hex = ZERO_HASH_HEX,
        .bech32_hrp = "bcrt",
        .base58 = TESTNET_BASE58,
    },
};

/* clang-format on */

static pthread_once_t g_init_once = PTHREAD_ONCE_INIT;

/* Appends a minimal data push (the form CScript::operator<< writes). */
static void script_push(struct buf *s, const uint8_t *p, size_t n)
{
    if (n < 0x4c) {
        buf_put_u8(s, (uint8_t)n);
    } else if (n <= 0xff) {
        buf_put_u8(s, 0x4c); /* OP_PUSHDATA1 */
        buf_put_u8(s, (uint8_t)n);
    } else {
        CHECK_ALWAYS(n <= 0xffff);
        buf_put_u8(s, 0x4d); /* OP_PUSHDATA2 */
        buf_put_u16le(s, (uint16_t)n);
    }
    buf_append(s, p, n);
}

/* Appends a positive number pushed as CScriptNum bytes (little-endian, a 0x00 byte added
 * when the top bit would read as a sign), the way `CScript() << CScriptNum(n)` and `<< n`
 * for n > 16 do. */
static void script_push_num(struct buf *s, uint64_t n)
{
    uint8_t bytes[9];
    size_t len = 0;
    while (n) {
        bytes[len++] = (uint8_t)n;
        n >>= 8;
    }
    if (len && (bytes[len - 1] & 0x80)) {
        bytes[len++] = 0;
    }
    script_push(s, bytes, len);
}

static void bytes_from_buf(struct bytes *dst, const struct buf *src)
{
    dst->len = src->len;
    dst->data = src->len ? xmemdup(src->data, src->len) : NULL;
}

/* Core's CreateGenesisBlock: one coinbase paying reward to <pubkey> OP_CHECKSIG, its
 * scriptSig pushing 486604799 (0x1d00ffff), the number 4 and the timestamp message. */
static void genesis_tx_build(struct tx *tx, const struct chain_genesis_spec *g)
{
    struct buf s;

    tx_init(tx);
    tx->version = 1;
    tx->locktime = 0;
    tx->vin = xcalloc(1, sizeof(*tx->vin));
    tx->vin_count = 1;
    memset(tx->vin[0].prevout.txid, 0, 32);
    tx->vin[0].prevout.n = 0xffffffffu;
    tx->vin[0].sequence = SEQUENCE_FINAL;

    buf_init(&s);
    script_push_num(&s, 486604799);
    script_push_num(&s, 4);
    script_push(&s, (const uint8_t *)g->timestamp, strlen(g->timestamp));
    bytes_from_buf(&tx->vin[0].script_sig, &s);

    tx->vout = xcalloc(1, sizeof(*tx->vout));
    tx->vout_count = 1;
    tx->vout[0].value_sat = g->reward_sat;
    buf_reset(&s);
    struct buf key;
    buf_init(&key);
    CHECK_ALWAYS(hex_decode(&key, g->output_pubkey_hex) == RC_OK);
    script_push(&s, key.data, key.len);
    buf_put_u8(&s, 0xac); /* OP_CHECKSIG */
    bytes_from_buf(&tx->vout[0].script_pubkey, &s);
    buf_clear(&key);
    buf_clear(&s);

    tx_compute_hashes(tx);
}

void chain_params_genesis_block(struct block *b, const struct chain_params *p)
{
    const struct chain_genesis_spec *g = &p->genesis_spec;

    block_init(b);
    b->txs = xcalloc(1, sizeof(*b->txs));
    b->tx_count = 1;
    genesis_tx_build(&b->txs[0], g);

    b->header.version = g->version;
    memset(b->header.prev_hash, 0, 32);
    /* The merkle root of a single transaction is its txid. */
    memcpy(b->header.merkle_root, b->txs[0].txid, 32);
    b->header.time = g->time;
    b->header.bits = g->bits;
    b->header.nonce = g->nonce;
    block_header_hash(&b->header, b->hash);
    b->size_total = BLOCK_HEADER_SIZE + ser_compact_len(1) + b->txs[0].size_total;
    b->size_stripped = BLOCK_HEADER_SIZE + ser_compact_len(1) + b->txs[0].size_stripped;
}

static void decode_hash_rev(uint8_t out32[32], const char *hex)
{
    CHECK_ALWAYS(hex != NULL);
    CHECK_ALWAYS(hex_decode_hash32_rev(out32, hex) == RC_OK);
}


/* A signet's challenge, and the message start BIP325 derives from it: the first 4 bytes of
 * SHA-256d of the challenge serialized as a script (CompactSize length, then the bytes). */
static int set_signet_challenge(struct chain_params *p, const uint8_t *challenge, size_t len)
{
    if (len > sizeof(p->signet_challenge)) {
        return RC_TOO_LARGE;
    }
    struct buf ser;
    uint8_t h[32];
    memcpy(p->signet_challenge, challenge, len);
    p->signet_challenge_len = len;
    buf_init(&ser);
    ser_put_varbytes(&ser, challenge, len);
    hash_sha256d(h, ser.data, ser.len);
    memcpy(p->magic, h, 4);
    buf_clear(&ser);
    return RC_OK;
}

static void init_one(struct chain_params *p)
{
    struct block genesis;

    chain_params_genesis_block(&genesis, p);
    p->genesis_header = genesis.header;
    memcpy(p->genesis_hash, genesis.hash, 32);
    block_clear(&genesis);
    /* As Core asserts: a genesis that does not hash to the well-known value means the
     * serialization or hashing code is broken, and nothing built on it could be trusted. */
    uint8_t expected[32];
    decode_hash_rev(expected, p->genesis_hash_hex);
    CHECK_ALWAYS(memcmp(expected, p->genesis_hash, 32) == 0);

    CHECK_ALWAYS(u256_from_hex(&p->pow_limit, p->pow_limit_hex) == RC_OK);
    p->pow_limit_bits = u256_get_compact(&p->pow_limit, 0);
    decode_hash_rev(p->bip34_hash, p->bip34_hash_hex);
    CHECK_ALWAYS(u256_from_hex(&p->minimum_chain_work, p->minimum_chain_work_hex) == RC_OK);
    decode_hash_rev(p->default_assume_valid, p->default_assume_valid_hex);

    if (p->signet_blocks) {
        struct buf ch;
        buf_init(&ch);
        CHECK_ALWAYS(hex_decode(&ch, p->signet_challenge_hex) == RC_OK);
        CHECK_ALWAYS(set_signet_challenge(p, ch.data, ch.len) == RC_OK);
        buf_clear(&ch);
    }
}

int chain_params_signet_custom(struct chain_params *out, const uint8_t *challenge, size_t len)
{
    *out = *chain_params_get("signet");
    if (set_signet_challenge(out, challenge, len) != RC_OK) {
        return RC_TOO_LARGE;
    }
    out->signet_challenge_hex = NULL;
    out->minimum_chain_work_hex = ZERO_HASH_HEX;
    memset(&out->minimum_chain_work, 0, sizeof(out->minimum_chain_work));
    out->default_assume_valid_hex = ZERO_HASH_HEX;
    memset(out->default_assume_valid, 0, 32);
    out->assumeutxo = NULL; /* nor snapshots */
    out->assumeutxo_count = 0;
    out->chain_tx_time = 0; /* Core's custom signet: no transaction data */
    out->chain_tx_count = 0;
    out->chain_tx_rate = 0;
    return RC_OK;
}

static void init_all(void)
{
    for (size_t i = 0; i < ARRAY_LEN(main_script_exceptions); i++) {
        decode_hash_rev(main_script_exceptions[i].hash, main_script_exceptions[i].hash_hex);
    }
    for (size_t i = 0; i < ARRAY_LEN(testnet3_script_exceptions); i++) {
        decode_hash_rev(testnet3_script_exceptions[i].hash, testnet3_script_exceptions[i].hash_hex);
    }
    for (size_t i = 0; i < ARRAY_LEN(main_bip30_exceptions); i++) {
        decode_hash_rev(main_bip30_exceptions[i].hash, main_bip30_exceptions[i].hash_hex);
    }
    for (int i = 0; i < CHAIN_COUNT; i++) {
        CHECK_ALWAYS(g_params[i].id == (enum chain_id)i);
        init_one(&g_params[i]);
    }
}

const struct chain_params *chain_params_by_id(enum chain_id id)
{
    CHECK_ALWAYS((int)id >= 0 && (int)id < CHAIN_COUNT);
    CHECK_ALWAYS(pthread_once(&g_init_once, init_all) == 0);
    return &g_params[id];
}

const struct chain_params *chain_params_get(const char *name)
{
    static const struct {
        const char *name;
        enum chain_id id;
    } names[] = {
        {"main", CHAIN_MAIN},         {"test", CHAIN_TESTNET3}, {"testnet3", CHAIN_TESTNET3},
        {"testnet4", CHAIN_TESTNET4}, {"signet", CHAIN_SIGNET}, {"regtest", CHAIN_REGTEST},
    };
    if (!name) {
        return NULL;
    }
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        if (strcmp(name, names[i].name) == 0) {
            return chain_params_by_id(names[i].id);
        }
    }
    return NULL;
}

int chain_params_script_exception(const struct chain_params *p, const uint8_t hash32[32],
                                  uint32_t *flags)
{
    for (size_t i = 0; i < p->script_exception_count; i++) {
        if (memcmp(p->script_exceptions[i].hash, hash32, 32) == 0) {
            *flags = p->script_exceptions[i].flags;
            return 1;
        }
    }
    return 0;
}

int chain_params_is_bip30_exception(const struct chain_params *p, int height,
                                    const uint8_t hash32[32])
{
    for (size_t i = 0; i < p->bip30_exception_count; i++) {
        if (p->bip30_exceptions[i].height == height &&
            memcmp(p->bip30_exceptions[i].hash, hash32, 32) == 0) {
            return 1;
        }
    }
    return 0;
}

const struct chain_assumeutxo *chain_params_assumeutxo_for_hash(const struct chain_params *p,
                                                                const uint8_t hash32[32])
{
    for (size_t i = 0; i < p->assumeutxo_count; i++) {
        uint8_t h[32];
        decode_hash_rev(h, p->assumeutxo[i].blockhash_hex);
        if (memcmp(h, hash32, 32) == 0) {
            return &p->assumeutxo[i];
        }
    }
    return NULL;
}

const struct chain_assumeutxo *chain_params_assumeutxo_for_height(const struct chain_params *p,
                                                                  int height)
{
    for (size_t i = 0; i < p->assumeutxo_count; i++) {
        if (p->assumeutxo[i].height == height) {
            return &p->assumeutxo[i];
        }
    }
    return NULL;
}

const struct chain_params *chain_params_by_magic(const uint8_t magic[4])
{
    for (int i = 0; i < CHAIN_COUNT; i++) {
        const struct chain_params *p = chain_params_by_id((enum chain_id)i);
        if (memcmp(p->magic, magic, 4) == 0) {
            return p;
        }
    }
    return NULL;
}

int chain_params_option(const char *opt, const struct chain_params **out, const char **name)
{
    if (strncmp(opt, "chain=", 6) == 0) {
        *name = opt + 6;
    } else if (strcmp(opt, "testnet") == 0) {
        *name = "test";
    } else if (strcmp(opt, "regtest") == 0 || strcmp(opt, "testnet4") == 0 ||
               strcmp(opt, "signet") == 0) {
        *name = opt;
    } else {
        return 0;
    }
    *out = chain_params_get(*name);
    return 1;
}
