/* src/node/: the options each subsystem gets from the command line (chain_args.c,
 * chainstate_args.c, mempool_args.c, net_args.c), with Core's start-up errors word for word,
 * and the node context's tip. */
#include <stdlib.h>
#include <string.h>

#include "node/chain_args.h"
#include "node/chainstate_args.h"
#include "node/context.h"
#include "node/indexes.h"
#include "node/mempool_args.h"
#include "node/net_args.h"
#include "options.h"
#include "test.h"
#include "util/args.h"
#include "util/rc.h"

static char err[1024];

/* The options of `bitnoded ARGS...`, with the chain selected. */
static struct args *parse(const char *line)
{
    char *copy = strdup(line), *save = NULL;
    const char *argv[32] = {"bitnoded"};
    int argc = 1;
    for (char *t = strtok_r(copy, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save)) {
        argv[argc++] = t;
    }
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    CHECK_EQ_INT(args_parse_cmdline(a, argc, (char *const *)argv, NULL, err, sizeof(err)), 0);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    free(copy); /* args copied what it keeps */
    return a;
}

static void test_chain_params(void)
{
    struct node_chain c;
    struct args *a = parse("-regtest -testactivationheight=segwit@7 -minimumchainwork=0x10");
    CHECK_EQ_INT(node_chain_params(&c, a, err, sizeof(err)), RC_OK);
    CHECK(c.params == &c.custom_params);
    CHECK_EQ_INT(c.params->segwit_height, 7);
    CHECK(c.params->minimum_chain_work.w[0] == 0x10);
    CHECK(!node_chain_is_custom_signet(&c));
    args_free(a);

    static const struct {
        const char *line, *error;
    } bad[] = {
        {"-regtest -testactivationheight=segwit7",
         "Invalid format (segwit7) for -testactivationheight=name@height."},
        {"-regtest -testactivationheight=taproot@7",
         "Invalid name (taproot@7) for -testactivationheight=name@height."},
        {"-regtest -testactivationheight=csv@-1",
         "Invalid height value (csv@-1) for -testactivationheight=name@height."},
        {"-regtest -minimumchainwork=xyz",
         "Invalid minimum work specified (xyz), must be up to 64 hex digits"},
        {"-signet -signetchallenge=zz", "-signetchallenge must be hex, not 'zz'."},
        {"-signet -signetchallenge=51 -signetchallenge=52",
         "-signetchallenge cannot be multiple values."},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        a = parse(bad[i].line);
        CHECK_EQ_INT(node_chain_params(&c, a, err, sizeof(err)), RC_INVALID);
        CHECK_EQ_STR(err, bad[i].error);
        args_free(a);
    }
    a = parse("-signet -signetchallenge=51");
    CHECK_EQ_INT(node_chain_params(&c, a, err, sizeof(err)), RC_OK);
    CHECK(node_chain_is_custom_signet(&c) && c.params->signet_challenge_len == 1);
    CHECK(c.params->chain_tx_count == 0 && c.params->chain_tx_rate == 0); /* Core's */
    args_free(a);
    /* -test=bip94: BIP94 on regtest (mining_basic's timewarp checks); off without it. */
    a = parse("-regtest -test=bip94");
    CHECK_EQ_INT(node_chain_params(&c, a, err, sizeof(err)), RC_OK);
    CHECK(c.params->enforce_bip94 && c.params->id == CHAIN_REGTEST);
    args_free(a);
    a = parse("-regtest");
    CHECK_EQ_INT(node_chain_params(&c, a, err, sizeof(err)), RC_OK);
    CHECK(!c.params->enforce_bip94);
    args_free(a);
}

static void test_chainstate_options(void)
{
    struct chainstate_options o;
    const struct chain_params *p = chain_params_get("regtest");
    struct args *a = parse("-regtest -dbcache=1 -par=3 -maxsigcachesize=0 -dbbloombits=0 "
                           "-assumevalid=0x1 -txindex");
    CHECK_EQ_INT(node_chainstate_options(&o, a, p, "/nowhere", err, sizeof(err)), RC_OK);
    CHECK_EQ_U64(o.dbcache_bytes, (size_t)4 << 20); /* clamped to 4 MiB */
    CHECK_EQ_INT(o.par, 3);
    CHECK_EQ_U64(o.sigcache_bytes, 0);
    CHECK_EQ_INT(o.bloom_bits, -1); /* no filter */
    CHECK(o.txindex && o.assume_valid_set && o.assume_valid[0] == 1);
    CHECK_EQ_U64(o.mempool_bytes, (size_t)300 * 1000000);
    args_free(a);
    static const struct {
        const char *line, *error;
    } bad[] = {
        {"-regtest -dbbloombits=65", "-dbbloombits must be in 0-64"},
        {"-regtest -maxmempool=4", "-maxmempool must be at least 5 MB"},
        {"-regtest -assumevalid=xyz",
         "Invalid assumevalid block hash specified (xyz), must be up to 64 hex digits (or 0 to "
         "disable)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        a = parse(bad[i].line);
        CHECK_EQ_INT(node_chainstate_options(&o, a, p, "/nowhere", err, sizeof(err)),
                     RC_INVALID);
        CHECK_EQ_STR(err, bad[i].error);
        args_free(a);
    }
}

static void test_mempool_options(void)
{
    struct mempool_options mo;
    struct miner_options mi;
    const struct chain_params *p = chain_params_get("regtest");
    struct args *a = parse("-regtest -minrelaytxfee=0.00002 -blockmaxweight=1000000");
    CHECK_EQ_INT(node_mempool_options(&mo, a, p, 300, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(mo.min_relay_feerate, 2000);
    CHECK_EQ_INT(node_miner_options(&mi, a, p, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(mi.block_max_weight, 1000000);
    args_free(a);
    a = parse("-regtest -minrelaytxfee=abc");
    CHECK_EQ_INT(node_mempool_options(&mo, a, p, 300, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid amount for -minrelaytxfee=<amount>: 'abc'");
    args_free(a);
    /* Core v31.99's CheckMiningOptions, in its order and words. */
    const struct {
        const char *args, *err;
    } bad[] = {
        {"-regtest -blockreservedweight=1000",
         "-blockreservedweight (1000) is lower than minimum safety value of (2000)"},
        {"-regtest -blockreservedweight=4000001",
         "-blockreservedweight (4000001) exceeds consensus maximum block weight (4000000)"},
        {"-regtest -blockmaxweight=4000001",
         "-blockmaxweight (4000001) exceeds consensus maximum block weight (4000000)"},
        {"-regtest -blockmaxweight=7999", "-blockreservedweight (8000) exceeds -blockmaxweight (7999)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        a = parse(bad[i].args);
        CHECK_EQ_INT(node_miner_options(&mi, a, p, err, sizeof(err)), RC_INVALID);
        CHECK_EQ_STR(err, bad[i].err);
        args_free(a);
    }
}

/* -blockfilterindex as Core reads it: off by default and with 0; on with no value, 1 or
 * basic; any other type is Core's start-up error. */
static void test_index_options(void)
{
    static const struct {
        const char *line;
        int rc, basic;
        const char *err;
    } cases[] = {
        {"-regtest", RC_OK, 0, NULL},
        {"-regtest -blockfilterindex=0", RC_OK, 0, NULL},
        {"-regtest -noblockfilterindex", RC_OK, 0, NULL},
        {"-regtest -blockfilterindex", RC_OK, 1, NULL},
        {"-regtest -blockfilterindex=1", RC_OK, 1, NULL},
        {"-regtest -blockfilterindex=basic", RC_OK, 1, NULL},
        {"-regtest -blockfilterindex=extended", RC_INVALID, 0,
         "Unknown -blockfilterindex value extended."},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct args *a = parse(cases[i].line);
        int basic = -1;
        err[0] = 0;
        CHECK_EQ_INT(node_blockfilter_types(a, &basic, err, sizeof(err)), cases[i].rc);
        CHECK_EQ_INT(basic, cases[i].basic);
        if (cases[i].err) {
            CHECK_EQ_STR(err, cases[i].err);
        }
        args_free(a);
    }
    struct args *a = parse("-regtest -peerblockfilters");
    CHECK_EQ_INT(node_check_index_options(a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Cannot set -peerblockfilters without -blockfilterindex.");
    args_free(a);
    a = parse("-regtest -peerblockfilters -blockfilterindex");
    CHECK_EQ_INT(node_check_index_options(a, err, sizeof(err)), RC_OK);
    args_free(a);
}

static void test_net_options(void)
{
    struct node_net_args na;
    const struct chain_params *p = chain_params_get("regtest");
    struct args *a = parse("-regtest -connect=127.0.0.1:1 -whitebind=noban@127.0.0.1:9 "
                           "-uacomment=a -uacomment=b -test=addrman -maxconnections=-5");
    CHECK_EQ_INT(node_net_options(&na, a, p, 0, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(na.o.n_connect, 1);
    CHECK(!na.o.automatic && !na.o.dnsseed); /* -connect: only these */
    CHECK(na.o.listen);                      /* -whitebind turns listening on */
    CHECK_EQ_INT(na.o.n_binds, 1);
    CHECK_EQ_INT(na.o.binds[0].addr.port, 9);
    CHECK_EQ_STR(na.o.user_agent_comment, "a; b");
    CHECK(na.o.deterministic_addrman);
    CHECK_EQ_INT(na.o.max_connections, 0);
    CHECK_EQ_INT(na.o.port, p->default_port);
    node_net_args_clear(&na);
    args_free(a);
    static const struct {
        const char *line, *error;
    } bad[] = {
        {"-regtest -onlynet=carrierpigeon",
         "Unknown network specified in -onlynet: 'carrierpigeon'"},
        {"-regtest -whitebind=127.0.0.1", "Need to specify a port with -whitebind: '127.0.0.1'"},
        {"-regtest -whitebind=noban@127.0.0.1/10",
         "Cannot resolve -whitebind address: '127.0.0.1/10'"},
        {"-regtest -whitebind=noban@127.0.0.1 -listen=0",
         "Cannot set -bind or -whitebind together with -listen=0"},
        {"-regtest -whitelist=in,out@127.0.0.1",
         "Only direction was set, no permissions: 'in,out@127.0.0.1'"},
        {"-regtest -peertimeout=0", "peertimeout must be a positive integer."},
        {"-regtest -test=nothing", "Unrecognised option \"nothing\" provided in -test=<option>."},
        {"-testnet -test=addrman", "-test=<option> can only be used with regtest"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        a = parse(bad[i].line);
        CHECK_EQ_INT(node_net_options(&na, a, chain_params_get(args_chain(a)), 0, err,
                                      sizeof(err)),
                     RC_INVALID);
        CHECK_EQ_STR(err, bad[i].error);
        node_net_args_clear(&na);
        args_free(a);
    }
}

static void test_context(void)
{
    struct node_context n;
    node_context_init(&n);
    CHECK_EQ_INT(n.tip.height, -1);
    CHECK(n.net == NULL && n.cs == NULL && n.mempool == NULL);
    CHECK_EQ_INT(n.mempool_dat_version, 2);
    struct args *a = parse("-regtest -deprecatedrpc=bip125 -persistmempoolv1");
    node_rpc_deprecated(&n, a);
    CHECK(n.deprecated_bip125 && !n.deprecated_fullrbf);
    CHECK_EQ_INT(n.mempool_dat_version, 1);
    args_free(a);
    node_context_clear(&n);
}

/* Core's node::Warnings: each kind set once and cleared, listed in Core's order (the chain's
 * two, then the clock, then a fatal error); the clock callback net calls. */
static void test_warnings(void)
{
    struct node_warnings w;
    node_warnings_init(&w);
    char out[NODE_WARNING_COUNT][NODE_WARNING_MAX_LEN];
    size_t n = 9;
    node_warnings_get(&w, out, &n);
    CHECK_EQ_INT((int)n, 0);
    CHECK_EQ_INT(node_warnings_set(&w, NODE_WARNING_FATAL, "Disk space is too low!"), 1);
    node_warnings_clock(&w, "clock");
    CHECK_EQ_INT(node_warnings_set(&w, NODE_WARNING_UNKNOWN_NEW_RULES, "rules"), 1);
    CHECK_EQ_INT(node_warnings_set(&w, NODE_WARNING_UNKNOWN_NEW_RULES, "rules"), 0);
    node_warnings_get(&w, out, &n);
    CHECK_EQ_INT((int)n, 3);
    CHECK_EQ_STR(out[0], "rules");
    CHECK_EQ_STR(out[1], "clock");
    CHECK_EQ_STR(out[2], "Disk space is too low!");
    node_warnings_clock(&w, NULL);
    CHECK_EQ_INT(node_warnings_unset(&w, NODE_WARNING_CLOCK_OUT_OF_SYNC), 0);
    node_warnings_get(&w, out, &n);
    CHECK_EQ_INT((int)n, 2);
    CHECK_EQ_STR(out[1], "Disk space is too low!");
    node_warnings_destroy(&w);
}

int main(void)
{
    TEST(test_warnings);
    TEST(test_chain_params);
    TEST(test_chainstate_options);
    TEST(test_mempool_options);
    TEST(test_net_options);
    TEST(test_index_options);
    TEST(test_context);
    return test_done();
}
