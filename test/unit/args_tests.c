/* Unit tests for the util layer of the daemon: options and config file (util/args), the
 * log (util/log), datadir helpers (util/fs) and timestamps (util/time). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "consensus/params.h"
#include "test.h"
#include "options.h"
#include "util/args.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"

static char err[1024];

static struct args *parse(const char *const *argv, int argc)
{
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    CHECK_EQ_INT(args_parse_cmdline(a, argc, (char *const *)argv, NULL, err, sizeof(err)), 0);
    return a;
}

static int conf(struct args *a, const char *text)
{
    return args_read_config(a, text, strlen(text), "bitnode.conf", false, err, sizeof(err));
}

static void test_cmdline_forms(void)
{
    const char *argv[] = {"bitnoded",        "-rpcport=1234", "--rpcuser=alice", "-printtoconsole",
                          "-nodebuglogfile", "-server=0",     "-debug=net",      "-debug=rpc"};
    struct args *a = parse(argv, 8);
    CHECK_EQ_INT(args_get_int(a, "rpcport", 0), 1234);
    CHECK_EQ_STR(args_get(a, "rpcuser", NULL), "alice");
    CHECK(args_get_bool(a, "printtoconsole", false));
    CHECK(args_is_negated(a, "debuglogfile"));
    CHECK(args_is_set(a, "debuglogfile"));
    CHECK(!args_get_bool(a, "server", true));
    CHECK(!args_is_set(a, "daemon"));
    CHECK(args_get_bool(a, "daemon", true));
    CHECK_EQ_STR(args_get(a, "pid", "dflt"), "dflt");
    const char **v;
    size_t n = args_get_list(a, "debug", &v);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(v[0], "net");
        CHECK_EQ_STR(v[1], "rpc");
    }
    free(v);
    args_free(a);
}

static void test_cmdline_last_wins_and_negation(void)
{
    const char *argv[] = {"bitnoded", "-rpcport=1",  "-rpcport=2", "-debug=net",
                          "-nodebug", "-debug=http", "-h"};
    struct args *a = parse(argv, 7);
    CHECK_EQ_INT(args_get_int(a, "rpcport", 0), 2);
    const char **v;
    size_t n = args_get_list(a, "debug", &v);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_STR(v[0], "http");
    }
    free(v);
    CHECK(args_get_bool(a, "help", false));
    args_free(a);
}

static void test_cmdline_errors(void)
{
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    const char *bad[] = {"bitnoded", "-rpcport=1", "-frobnicate=2"};
    CHECK_EQ_INT(args_parse_cmdline(a, 3, (char *const *)bad, NULL, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid parameter -frobnicate=2"); /* the argument as given, Core's */
    args_free(a);

    a = args_new(bitnoded_options, bitnoded_options_len);
    const char *stray[] = {"bitnoded", "uptime"};
    CHECK_EQ_INT(args_parse_cmdline(a, 2, (char *const *)stray, NULL, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Command line contains unexpected token 'uptime', see -help for a list "
                      "of options.");
    args_free(a);

    /* bitnode-cli: options stop at the first word. */
    a = args_new(bitnode_cli_options, bitnode_cli_options_len);
    const char *cli[] = {"bitnode-cli", "-named", "echo", "-x", "arg0=1"};
    int first = -1;
    CHECK_EQ_INT(args_parse_cmdline(a, 5, (char *const *)cli, &first, err, sizeof(err)), 0);
    CHECK_EQ_INT(first, 2);
    CHECK(args_get_bool(a, "named", false));
    args_free(a);
}

/* Parses argv (NULL-terminated, after "bitnoded") and checks args_validate: accepted when
 * want_err is NULL, else refused with exactly want_err. */
static void expect_validate(const char *const *argv, const char *want_err)
{
    const char *full[16] = {"bitnoded"};
    int n = 1;
    while (argv[n - 1] && n < 16) {
        full[n] = argv[n - 1];
        n++;
    }
    struct args *a = parse(full, n);
    if (!want_err) {
        CHECK_EQ_INT(args_validate(a, err, sizeof(err)), 0);
    } else {
        CHECK_EQ_INT(args_validate(a, err, sizeof(err)), RC_INVALID);
        CHECK_EQ_STR(err, want_err);
    }
    args_free(a);
}

static void test_validate(void)
{
    expect_validate((const char *[]){"-rpcport=abc", NULL},
                    "Invalid value for -rpcport: 'abc' (expected an integer)");
    expect_validate((const char *[]){"-upnp=1", NULL},
                    "-upnp: not implemented yet (only -upnp=0 is accepted)");
    expect_validate((const char *[]){"-capturemessages", NULL}, NULL);
    expect_validate((const char *[]){"-dbcache=x", NULL},
                    "Invalid value for -dbcache: 'x' (expected an integer)");
    expect_validate((const char *[]){"-daemon=yes", NULL},
                    "Invalid value for -daemon: 'yes' (expected 0 or 1)");
    expect_validate((const char *[]){"-regtest", "-rpcport=5", "-rpcthreads=2", "-server", NULL},
                    NULL);
    /* The P2P options. */
    expect_validate((const char *[]){"-listen", "-maxconnections=2", "-connect=127.0.0.1",
                                     "-addnode=127.0.0.1:18444", "-bind=127.0.0.1",
                                     "-whitelist=noban@127.0.0.1", "-v2transport=0", NULL},
                    NULL);

    /* What bitnode does anyway: accepted (Core's "off" forms, a wallet-less build's
     * -disablewallet), and ZMQ's publishers. */
    expect_validate((const char *[]){"-listen=0", "-noconnect", "-prune=0", "-disablewallet",
                                     "-maxconnections=0", "-nodnsseed", NULL},
                    NULL);
    expect_validate((const char *[]){"-zmqpubrawblock=tcp://127.0.0.1:28332",
                                     "-zmqpubrawblockhwm=10", NULL},
                    NULL);

    /* Core's options that would mislead if ignored: refused by name (a consensus test
     * parameter, a network bitnode cannot reach yet) ... */
    expect_validate((const char *[]){"-vbparams=testdummy:0:1", NULL},
                    "-vbparams: not implemented yet");
    expect_validate((const char *[]){"-i2psam=127.0.0.1:7656", NULL},
                    "-i2psam: not implemented yet");
    /* ... or, where the off form is what bitnode does, refused only on. */
    expect_validate((const char *[]){"-privatebroadcast", NULL},
                    "-privatebroadcast: not implemented yet (only -privatebroadcast=0 is accepted)");
    expect_validate((const char *[]){"-peerbloomfilters", "-inboundrelaypercent=20", NULL},
                    NULL);
    expect_validate((const char *[]){"-coinstatsindex", "-blockfilterindex", "-txospenderindex",
                                     NULL},
                    NULL);
    expect_validate((const char *[]){"-rest=0", "-noblockfilterindex", "-coinstatsindex=0",
                                     "-peerbloomfilters=0", "-rpcwhitelistdefault=0",
                                     "-mocktime=0", "-daemonwait=0", NULL},
                    NULL);
    /* Policy for the mempool to come is ignored now, no longer refused. */
    expect_validate((const char *[]){"-mempoolexpiry=1", "-minrelaytxfee=0.00001", NULL}, NULL);

    /* Implemented since the chainstate: accepted. */
    expect_validate((const char *[]){"-loadblock=/tmp/x.dat", "-reindex", "-dbcache=100",
                                     "-stopatheight=5", NULL},
                    NULL);
    /* Implemented since the operator interfaces: accepted. */
    expect_validate((const char *[]){"-rpcwhitelist=alice:getblockcount", "-startupnotify=true",
                                     "-blocknotify=true %s", "-alertnotify=true",
                                     "-shutdownnotify=true", "-shutdownnotify=false", "-rest",
                                     "-rpcwhitelistdefault", "-rpccookieperms=group", NULL},
                    NULL);
}

/* The reason args_ignored reported for name, or NULL if it did not report name exactly once. */
static const char *ignored_reason_of(const struct arg_ignored *ig, size_t n, const char *name)
{
    const char *found = NULL;
    int times = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ig[i].name, name) == 0) {
            found = ig[i].reason;
            times++;
        }
    }
    return times == 1 ? found : NULL;
}

static void test_ignored(void)
{
    /* Accepted whatever the value (nothing reads it), a negation included, and reported. */
    const char *argv[] = {"bitnoded", "-regtest", "-keypool=abc", "-nocheckmempool",
                          "-loglevel=trace", "-loglevel=net:debug", "-rpcport=5"};
    struct args *a = parse(argv, 7);
    CHECK_EQ_INT(conf(a, "wallet=w\nfallbackfee=0.0002\n[regtest]\nunsafesqlitesync=1\n"
                         "[main]\nmaxtxfee=1\n"),
                 0);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_INT(args_validate(a, err, sizeof(err)), 0);
    struct arg_ignored *ig;
    size_t n = args_ignored(a, &ig);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_STR(ignored_reason_of(ig, n, "keypool"), "bitnode has no wallet");
    CHECK_EQ_STR(ignored_reason_of(ig, n, "fallbackfee"), "bitnode has no wallet");
    CHECK_EQ_STR(ignored_reason_of(ig, n, "unsafesqlitesync"), "bitnode has no wallet");
    CHECK_EQ_STR(ignored_reason_of(ig, n, "checkmempool"), "bitnode has no mempool consistency check");
    CHECK_EQ_STR(ignored_reason_of(ig, n, "loglevel"),
                 "bitnode logs at one level; -debug selects categories");
    /* Network-only at the top level: not in effect on regtest (Core's warning instead);
     * another chain's section: not in effect either. */
    CHECK(ignored_reason_of(ig, n, "wallet") == NULL);
    CHECK(ignored_reason_of(ig, n, "maxtxfee") == NULL);
    CHECK_EQ_INT(args_warning_count(a), 1);
    if (args_warning_count(a) == 1) {
        CHECK_EQ_STR(args_warning(a, 0), "Config setting for -wallet only applied on regtest "
                                         "network when in [regtest] section.");
    }
    free(ig);
    args_free(a);

    /* Nothing ignored set: an empty list. */
    const char *plain[] = {"bitnoded", "-regtest", "-debug=net"};
    a = parse(plain, 3);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_INT(args_ignored(a, &ig), 0);
    free(ig);
    args_free(a);

    /* An option no bitcoind has is still an error, with Core's messages. */
    a = args_new(bitnoded_options, bitnoded_options_len);
    const char *bad[] = {"bitnoded", "-keypool=1", "-keypoolsize=1"};
    CHECK_EQ_INT(args_parse_cmdline(a, 3, (char *const *)bad, NULL, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid parameter -keypoolsize=1");
    CHECK_EQ_INT(conf(a, "keypool=1\nwalletnotfy=x\n"), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid configuration value walletnotfy");
    CHECK_EQ_INT(conf(a, "[regtest]\nkeypool=1\nwalletnotfy=x\n"), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid configuration value regtest.walletnotfy");
    CHECK_EQ_INT(conf(a, "regtest.walletnotfy=x\n"), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid configuration value regtest.walletnotfy");
    args_free(a);
}

/* Core's test framework (test/functional/test_framework): the bitcoin.conf util.py's
 * write_config writes for node 0 on regtest, with the bind=127.0.0.1 add_nodes appends, and
 * the arguments test_node.py passes (plus -disablewallet, -conf for bitnode's file name). */
static const char core_framework_conf[] = "regtest=1\n"
                                          "[regtest]\n"
                                          "port=11000\n"
                                          "rpcport=12000\n"
                                          "rpcservertimeout=99000\n"
                                          "rpcdoccheck=1\n"
                                          "rpcthreads=2\n"
                                          "fallbackfee=0.0002\n"
                                          "server=1\n"
                                          "keypool=1\n"
                                          "discover=0\n"
                                          "dnsseed=0\n"
                                          "fixedseeds=0\n"
                                          "listenonion=0\n"
                                          "peertimeout=999999999\n"
                                          "printtoconsole=0\n"
                                          "natpmp=0\n"
                                          "shrinkdebugfile=0\n"
                                          "unsafesqlitesync=1\n"
                                          "connect=0\n"
                                          "maxconnections=94\n"
                                          "par=2\n"
                                          "prevoutfetchthreads=1\n"
                                          "bind=127.0.0.1\n";

static void test_core_framework_options(void)
{
    const char *argv[] = {"bitnoded",
                          "-datadir=/tmp/node0",
                          "-conf=bitcoin.conf",
                          "-logtimemicros",
                          "-debug",
                          "-debugexclude=leveldb",
                          "-debugexclude=rand",
                          "-uacomment=testnode0",
                          "-disablewallet",
                          "-logthreadnames",
                          "-logsourcelocations",
                          "-loglevel=trace",
                          "-nologratelimit",
                          "-v2transport=0",
                          "-whitelist=noban,in,out@127.0.0.1",
                          "-checkblockindex=1",
                          "-checkaddrman=1",
                          "-checkmempool=1",
                          "-persistmempool=0",
                          "-acceptnonstdtxn=1",
                          "-blockversion=4"};
    struct args *a = parse(argv, (int)ARRAY_LEN(argv));
    CHECK_EQ_INT(conf(a, core_framework_conf), 0);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_STR(args_chain(a), "regtest");
    CHECK_EQ_INT(args_warning_count(a), 0);
    CHECK_EQ_INT(args_validate(a, err, sizeof(err)), 0);
    /* What bitnode does with them is unchanged by the ignored ones around them. */
    CHECK_EQ_INT(args_get_int(a, "rpcport", 0), 12000);
    CHECK_EQ_INT(args_get_int(a, "maxconnections", 0), 94);
    CHECK_EQ_INT(args_get_int(a, "rpcthreads", 0), 2);
    CHECK(args_get_bool(a, "rpcdoccheck", false));
    CHECK(!args_get_bool(a, "v2transport", true));

    const char *want[][2] = {
        {"fallbackfee", "bitnode has no wallet"},
        {"keypool", "bitnode has no wallet"},
        {"unsafesqlitesync", "bitnode has no wallet"},
        {"disablewallet", "bitnode has no wallet"},
        {"listenonion", "bitnode has no Tor control yet"},
        {"natpmp", "bitnode maps no ports (no PCP or NAT-PMP yet)"},
        {"shrinkdebugfile", "bitnode does not shrink debug.log"},
        {"prevoutfetchthreads", "bitnode has no prevout-fetch threads; -par sets its script "
                                "threads"},
        {"logsourcelocations", "bitnode's log lines carry no source locations"},
        {"loglevel", "bitnode logs at one level; -debug selects categories"},
        {"logratelimit", "bitnode does not rate-limit its log"},
        {"checkblockindex", "bitnode has no periodic block-tree consistency check"},
        {"checkaddrman", "bitnode has no addrman consistency check"},
        {"checkmempool", "bitnode has no mempool consistency check"},
    };
    struct arg_ignored *ig;
    size_t n = args_ignored(a, &ig);
    CHECK_EQ_INT(n, ARRAY_LEN(want));
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        const char *why = ignored_reason_of(ig, n, want[i][0]);
        if (!why || strcmp(why, want[i][1]) != 0) {
            printf("# -%s: reason \"%s\"\n", want[i][0], why ? why : "(not reported once)");
        }
        CHECK_EQ_STR(why, want[i][1]);
    }
    free(ig);
    args_free(a);
}

static void test_option_table(void)
{
    /* Each name once (the parser would find only the first), each reason a phrase that reads
     * after "Ignoring -name: ". args_new checked that ARG_IGNORED goes with ARG_REASON. */
    size_t n_ignored = 0;
    for (size_t i = 0; i < bitnoded_options_len; i++) {
        const struct arg_def *d = &bitnoded_options[i];
        for (size_t j = 0; j < i; j++) {
            if (strcmp(bitnoded_options[j].name, d->name) == 0) {
                printf("# -%s twice\n", d->name);
                CHECK(0);
            }
        }
        const char *sep = strstr(d->help, ARG_REASON_SEP);
        CHECK((sep != NULL) == ((d->flags & ARG_IGNORED) != 0));
        if (sep) {
            const char *why = sep + 1;
            n_ignored++;
            CHECK(strlen(why) >= 10 && strlen(why) <= 90);
            CHECK(why[strlen(why) - 1] != '.');
            CHECK(sep > d->help && sep[-1] != ' '); /* Core's help text, then the reason */
        }
    }
    CHECK(n_ignored >= 51); /* -blocksxor is done now */

    /* -help prints an ignored option's Core text without its reason, and leaves out a
     * section whose options are all hidden. */
    static const struct arg_def defs[] = {
        {"foo", ARG_BOOL | ARG_IGNORED, "Section", "", "Core's text" ARG_REASON("a reason")},
        {"bar", ARG_BOOL | ARG_HIDDEN, "Hidden section", "", "hidden"},
    };
    struct args *a = args_new(defs, ARRAY_LEN(defs));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    args_print_help(a, f);
    fclose(f);
    CHECK_EQ_STR(text, "Section:\n\n  -foo\n       Core's text\n\n");
    free(text);
    const char *argv[] = {"x", "-foo=whatever"};
    CHECK_EQ_INT(args_parse_cmdline(a, 2, (char *const *)argv, NULL, err, sizeof(err)), 0);
    CHECK_EQ_INT(args_validate(a, err, sizeof(err)), 0);
    struct arg_ignored *ig;
    CHECK_EQ_INT(args_ignored(a, &ig), 1);
    CHECK_EQ_STR(ig[0].name, "foo");
    CHECK_EQ_STR(ig[0].reason, "a reason");
    free(ig);
    args_free(a);
}

static void test_config_precedence(void)
{
    const char *argv[] = {"bitnoded", "-rpcuser=cmd"};
    struct args *a = parse(argv, 2);
    CHECK_EQ_INT(conf(a, "# comment\n"
                         "rpcuser=top\n"
                         "rpcpassword = top pw  \n"
                         "rpcthreads=3\n"
                         "rpcthreads=7\n"
                         "regtest=1\n"
                         "rpcport=1111\n"
                         "[regtest]\n"
                         "rpcpassword=sect # trailing comment is not allowed for passwords\n"),
                 RC_INVALID);
    CHECK_EQ_STR(err, "parse error on line 9, using # in rpcpassword can be ambiguous and "
                      "should be avoided");
    args_free(a);

    a = parse(argv, 2);
    CHECK_EQ_INT(conf(a, "# comment\n"
                         "rpcuser=top\n"
                         "rpcpassword = top pw  \n"
                         "rpcthreads=3\n"
                         "rpcthreads=7\n"
                         "regtest=1\n"
                         "rpcport=1111\n"
                         "debug=net\n"
                         "[regtest]\n"
                         "rpcpassword=sect\n"
                         "debug=rpc\n"
                         "[main]\n"
                         "rpcport=2222\n"),
                 0);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_STR(args_chain(a), "regtest");
    CHECK_EQ_STR(args_get(a, "rpcuser", NULL), "cmd");      /* command line wins */
    CHECK_EQ_STR(args_get(a, "rpcpassword", NULL), "sect"); /* section beats top level */
    CHECK_EQ_INT(args_get_int(a, "rpcthreads", 0), 3);      /* config: first one wins */
    CHECK(!args_is_set(a, "rpcport"));                      /* network-only: ignored */
    CHECK_EQ_INT(args_warning_count(a), 1);
    if (args_warning_count(a) == 1) {
        CHECK_EQ_STR(args_warning(a, 0), "Config setting for -rpcport only applied on regtest "
                                         "network when in [regtest] section.");
    }
    const char **v;
    size_t n = args_get_list(a, "debug", &v);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(v[0], "rpc"); /* section values first, then the top level */
        CHECK_EQ_STR(v[1], "net");
    }
    free(v);
    args_free(a);
}

static void test_config_main_chain(void)
{
    const char *argv[] = {"bitnoded"};
    struct args *a = parse(argv, 1);
    CHECK_EQ_INT(conf(a, "rpcport=1111\ntest.rpcport=3333\nnoserver=1\n"), 0);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_STR(args_chain(a), "main");
    CHECK_EQ_INT(args_get_int(a, "rpcport", 0), 1111); /* on main the top level applies */
    CHECK_EQ_INT(args_warning_count(a), 0);
    CHECK(args_is_negated(a, "server"));
    CHECK(!args_get_bool(a, "server", true));
    args_free(a);

    a = parse(argv, 1);
    CHECK_EQ_INT(conf(a, "testnet=1\nrpcport=1111\ntest.rpcport=3333\n"), 0);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_STR(args_chain(a), "test");
    CHECK_EQ_INT(args_get_int(a, "rpcport", 0), 3333);
    CHECK_EQ_INT(args_warning_count(a), 0);
    args_free(a);
}

static void test_config_errors(void)
{
    const char *argv[] = {"bitnoded"};
    struct args *a = parse(argv, 1);
    CHECK_EQ_INT(conf(a, "server=1\nfoo=bar\n"), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid configuration value foo");
    CHECK_EQ_INT(conf(a, "\n\nnoserver\n"), RC_INVALID);
    CHECK_EQ_STR(err, "parse error on line 3: noserver, if you intended to specify a negated "
                      "option, use noserver=1 instead");
    CHECK_EQ_INT(conf(a, "server\n"), RC_INVALID);
    CHECK_EQ_STR(err, "parse error on line 1: server");
    CHECK_EQ_INT(conf(a, "-server=1\n"), RC_INVALID);
    CHECK_EQ_STR(err, "parse error on line 1: -server=1, options in configuration file must be "
                      "specified without leading -");
    CHECK_EQ_INT(conf(a, "conf=/etc/other.conf\n"), RC_INVALID);
    CHECK_EQ_INT(conf(a, "[mainnet]\nserver=1\n"), 0);
    CHECK_EQ_INT(args_warning_count(a), 1);
    if (args_warning_count(a) == 1) {
        CHECK_EQ_STR(args_warning(a, 0), "bitnode.conf:1 Section [mainnet] is not recognized.");
    }
    /* bitnode-cli reads the daemon's file and skips what it does not know. */
    struct args *c = args_new(bitnode_cli_options, bitnode_cli_options_len);
    CHECK_EQ_INT(args_read_config(c, "server=1\nrpcport=5\n", 19, "x", true, err, sizeof(err)), 0);
    CHECK_EQ_INT(args_get_int(c, "rpcport", 0), 5);
    args_free(c);
    args_free(a);
}

/* Core's ArgsManager rules: DISALLOW_NEGATION and DISALLOW_ELISION, double negatives, and
 * ReadConfigStream's order (every line's syntax first), words and warnings. */
static void test_core_rules(void)
{
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    const char *proxy[] = {"bitnoded", "-proxy"};
    CHECK_EQ_INT(args_parse_cmdline(a, 2, (char *const *)proxy, NULL, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Can not set -proxy with no value. Please specify value with -proxy=value.");
    const char *nodatadir[] = {"bitnoded", "-nodatadir"};
    CHECK_EQ_INT(args_parse_cmdline(a, 2, (char *const *)nodatadir, NULL, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Negating of -datadir is meaningless and therefore forbidden");
    CHECK_EQ_INT(conf(a, "nodatadir=1\n"), RC_INVALID);
    CHECK_EQ_STR(err, "Negating of -datadir is meaningless and therefore forbidden");
    args_free(a);

    const char *dbl[] = {"bitnoded", "-nolisten=false", "-noproxy", "-proxy=127.0.0.1:9050"};
    a = parse(dbl, 4);
    CHECK(args_get_bool(a, "listen", false));
    CHECK_EQ_STR(args_get(a, "proxy", ""), "127.0.0.1:9050");
    CHECK_EQ_INT(args_warning_count(a), 1);
    if (args_warning_count(a) == 1) {
        CHECK_EQ_STR(args_warning(a, 0), "Parsed potentially confusing double-negative "
                                         "-listen=false");
        CHECK_EQ_INT(args_warning_kind(a, 0), ARGS_WARNING_LOG);
    }
    args_free(a);

    a = args_new(bitnoded_options, bitnoded_options_len);
    const char *want_conf = "conf cannot be set in the configuration file; use includeconf= if "
                            "you want to include additional config files";
    CHECK_EQ_INT(conf(a, "server=1\nconf=other.conf\n"), RC_INVALID);
    CHECK_EQ_STR(err, want_conf);
    CHECK_EQ_INT(conf(a, "[regtest]\nnoconf=1\n"), RC_INVALID);
    CHECK_EQ_STR(err, want_conf);
    /* A bad line is reported before an unknown key on an earlier one. */
    CHECK_EQ_INT(conf(a, "frobnicate=1\n-server=1\n"), RC_INVALID);
    CHECK_EQ_STR(err, "parse error on line 2: -server=1, options in configuration file must be "
                      "specified without leading -");
    CHECK_EQ_INT(conf(a, "no\n"), RC_INVALID);
    CHECK_EQ_STR(err, "parse error on line 1: no, if you intended to specify a negated option, "
                      "use no=1 instead");
    const char *hash = "using # in rpcpassword can be ambiguous and should be avoided";
    CHECK_EQ_INT(conf(a, "server=1\nrpcuser=u\nmain.rpcpassword=some#pass"), RC_INVALID);
    CHECK(strstr(err, "parse error on line 3, ") == err && strstr(err, hash));
    CHECK_EQ_INT(conf(a, "server=1\nrpcuser=u\n[main]\nrpcpassword=some#pass"), RC_INVALID);
    CHECK(strstr(err, "parse error on line 4, ") == err && strstr(err, hash));
    args_free(a);

    /* What bitcoind does with the file: unknown keys skipped, named with their section. */
    a = args_new(bitnoded_options, bitnoded_options_len);
    const char *text = "frob=1\ntestnot.datadir=1\n[regtest]\nfrob2=1\nreindex=1\n[testnet]\n";
    CHECK_EQ_INT(args_read_config(a, text, strlen(text), "b.conf", true, err, sizeof(err)), 0);
    static const struct {
        enum args_warning_kind kind;
        const char *text;
    } want[] = {
        {ARGS_WARNING_LOG, "Ignoring unknown configuration value frob"},
        {ARGS_WARNING_SECTION, "b.conf:2 Section [testnot] is not recognized."},
        {ARGS_WARNING_LOG, "Ignoring unknown configuration value regtest.frob2"},
        {ARGS_WARNING_LOG, "reindex=1 is set in the configuration file, which will significantly "
                           "slow down startup. Consider removing or commenting out this option "
                           "for better performance, unless there is currently a condition which "
                           "makes rebuilding the indexes necessary"},
        {ARGS_WARNING_SECTION, "b.conf:6 Section [testnet] is not recognized."},
    };
    CHECK_EQ_INT(args_warning_count(a), ARRAY_LEN(want));
    for (size_t i = 0; i < ARRAY_LEN(want) && i < args_warning_count(a); i++) {
        CHECK_EQ_STR(args_warning(a, i), want[i].text);
        CHECK_EQ_INT(args_warning_kind(a, i), want[i].kind);
    }
    args_free(a);
}

static void test_chain_selection(void)
{
    const char *argv1[] = {"bitnoded", "-regtest", "-testnet"};
    struct args *a = parse(argv1, 3);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Invalid combination of -regtest, -signet, -testnet, -testnet4 and "
                      "-chain. Can use at most one.");
    args_free(a);

    const char *argv2[] = {"bitnoded", "-chain=foonet"};
    a = parse(argv2, 2);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Unknown chain foonet.");
    args_free(a);

    const char *argv3[] = {"bitnoded", "-chain=testnet4"};
    a = parse(argv3, 2);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_STR(args_chain(a), "testnet4");
    args_free(a);

    const char *argv4[] = {"bitnoded", "-noregtest", "-signet"};
    a = parse(argv4, 3);
    CHECK_EQ_INT(args_select_chain(a, err, sizeof(err)), 0);
    CHECK_EQ_STR(args_chain(a), "signet");
    args_free(a);

    CHECK_EQ_INT(fs_chain_info("regtest")->rpc_port, 18443);
    CHECK_EQ_STR(fs_chain_info("test")->subdir, "testnet3");
    CHECK_EQ_INT(fs_chain_info("testnet4")->rpc_port, 48332);
    CHECK_EQ_INT(fs_chain_info("signet")->rpc_port, 38332);
    CHECK_EQ_INT(fs_chain_info("main")->rpc_port, 8332);
    CHECK(fs_chain_info("mainnet") == NULL);
}

/* util's chain table (the layer below consensus, like Core's CBaseChainParams) must agree
 * with the consensus parameters. */
static void test_chain_table_matches_params(void)
{
    const char *names[] = {"main", "test", "testnet4", "signet", "regtest"};
    for (size_t i = 0; i < 5; i++) {
        const struct fs_chain_info *f = fs_chain_info(names[i]);
        const struct chain_params *p = chain_params_get(names[i]);
        CHECK(f != NULL && p != NULL);
        if (f && p) {
            CHECK_EQ_STR(f->subdir, p->datadir_subdir);
            CHECK_EQ_INT(f->rpc_port, p->rpc_port);
            CHECK_EQ_INT(f->p2p_port, p->default_port);
        }
    }
}

static int evaluated;
static int count_evaluation(void)
{
    return ++evaluated;
}

static void test_log(void)
{
    char path[] = "/tmp/bitnode_log_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    uint32_t mask = 0;
    CHECK_EQ_INT(log_category_parse("net", &mask), 0);
    CHECK_EQ_INT(mask, LOG_CAT_NET);
    CHECK_EQ_INT(log_category_parse("all", &mask), 0);
    CHECK_EQ_INT(mask, LOG_CAT_ALL);
    CHECK_EQ_INT(log_category_parse("nosuch", &mask), RC_INVALID);
    /* Core's deprecated category: taken as none, with a warning (buffered until the log
     * opens, so the first line below). */
    CHECK_EQ_INT(log_category_parse("libevent", &mask), 0);
    CHECK_EQ_INT(mask, 0);
    /* Core's 29 names; "kv" is ours for "leveldb" (the backend, whichever it is). */
    CHECK_EQ_INT(log_category_count(), 29);
    CHECK_EQ_INT(log_category_parse("kv", &mask), 0);
    CHECK_EQ_INT(mask, LOG_CAT_KV);
    CHECK_EQ_INT(log_category_parse("leveldb", &mask), 0);
    CHECK_EQ_INT(mask, LOG_CAT_KV);
    CHECK_EQ_INT(log_category_parse("mempoolrej", &mask), 0);

    LOG_INFO("before open %d", 1); /* buffered until the log opens */
    struct log_options lo = {.file_path = path, .print_to_console = false};
    CHECK_EQ_INT(log_open(&lo, err, sizeof(err)), 0);
    evaluated = 0;
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "hidden %d", count_evaluation());
    CHECK_EQ_INT(evaluated, 0); /* arguments not evaluated while the category is off */
    log_categories_enable(LOG_CAT_NET);
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "shown %d", count_evaluation());
    CHECK_EQ_INT(evaluated, 1);
    log_categories_disable(LOG_CAT_ALL);
    LOG(LOG_CAT_RPC, LOG_LVL_WARN, "warned");
    LOG_ERROR("bad %s", "thing");
    log_close();

    size_t len;
    char *text = (char *)test_read_file(path, &len);
    CHECK(text != NULL);
    if (text) {
        /* Each line: "YYYY-MM-DDTHH:MM:SSZ " then the prefix and message. */
        const char *want[] = {" [warning] The logging category `libevent` is deprecated, does "
                              "nothing, and will be removed in a future version\n",
                              " before open 1\n", " [net] shown 1\n", " [rpc:warning] warned\n",
                              " [error] bad thing\n"};
        const char *p = text;
        while (*p == '\n') {
            p++;
        }
        for (size_t i = 0; i < 5; i++) {
            CHECK(strlen(p) > 20 && p[4] == '-' && p[10] == 'T' && p[19] == 'Z');
            CHECK(strncmp(p + 20, want[i], strlen(want[i])) == 0);
            p = strchr(p, '\n');
            if (!p) {
                CHECK(0);
                break;
            }
            p++;
        }
        CHECK(strstr(text, "hidden") == NULL);
        free(text);
    }
    char clean[16];
    CHECK_EQ_STR(log_sanitize(clean, sizeof(clean), "a\nb\x01z"), "a?b?z");
    unlink(path);
}

static void test_fs(void)
{
    /* Core's CheckDiskSpace: 50 MiB beyond what is asked; a path that cannot be looked at
     * is not a full disk. */
    CHECK(fs_disk_space_ok("/nonexistent/bitnode", 0));
    CHECK(!fs_disk_space_ok("/", UINT64_MAX - FS_MIN_DISK_SPACE));
    CHECK_EQ_INT(FS_MIN_DISK_SPACE, 50ull << 20);
    char *p = fs_path_join("/a/b", "c");
    CHECK_EQ_STR(p, "/a/b/c");
    free(p);
    p = fs_path_join("/a/b/", "/abs");
    CHECK_EQ_STR(p, "/abs");
    free(p);
    p = fs_path_join("/a", "");
    CHECK_EQ_STR(p, "/a");
    free(p);

    char dir[] = "/tmp/bitnode_fs_test_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *sub = fs_path_join(dir, "x/y/z");
    CHECK_EQ_INT(fs_mkdir_p(sub, err, sizeof(err)), 0);
    CHECK(fs_is_dir(sub));

    int fd1 = -1, fd2 = -1;
    CHECK_EQ_INT(fs_lock_dir(sub, &fd1, err, sizeof(err)), 0);
    CHECK_EQ_INT(fs_lock_dir(sub, &fd2, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "Cannot obtain a lock on directory") != NULL);
    fs_unlock_dir(fd1);
    CHECK_EQ_INT(fs_lock_dir(sub, &fd2, err, sizeof(err)), 0);
    /* Bitcoin Core's lock, a POSIX record lock on the same file: refused while we hold ours,
     * and ours refused while it is held, naming the process. */
    char *lockfile = fs_path_join(sub, ".lock");
    int core_fd = open(lockfile, O_RDWR);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    CHECK(core_fd >= 0 && fcntl(core_fd, F_SETLK, &fl) != 0);
    fs_unlock_dir(fd2);
    CHECK_EQ_INT(fcntl(core_fd, F_SETLK, &fl), 0);
    CHECK_EQ_INT(fs_lock_dir(sub, &fd2, err, sizeof(err)), RC_INVALID);
    char want[64];
    snprintf(want, sizeof(want), "Process %ld holds it", (long)getpid());
    CHECK(strstr(err, want) != NULL && strstr(err, "Bitcoin Core") != NULL);
    close(core_fd);
    CHECK_EQ_INT(fs_lock_dir(sub, &fd2, err, sizeof(err)), 0);
    fs_unlock_dir(fd2);
    free(lockfile);

    char *file = fs_path_join(sub, "secret");
    CHECK_EQ_INT(fs_write_file_atomic(file, "abc", 3, 0600, err, sizeof(err)), 0);
    struct stat st;
    CHECK_EQ_INT(stat(file, &st), 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
    struct buf b;
    buf_init(&b);
    CHECK_EQ_INT(fs_read_file(file, &b, 100, err, sizeof(err)), 0);
    CHECK_EQ_INT(b.len, 3);
    CHECK_EQ_INT(fs_read_file(file, &b, 2, err, sizeof(err)), RC_TOO_LARGE);
    buf_clear(&b);
    char *missing = fs_path_join(sub, "missing");
    CHECK_EQ_INT(fs_read_file(missing, &b, 100, err, sizeof(err)), RC_NOT_FOUND);
    char *lock = fs_path_join(sub, ".lock");
    unlink(lock);
    unlink(file);
    free(lock);
    free(missing);
    free(file);
    free(sub);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

static void test_help_text(void)
{
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    args_print_help(a, f);
    fclose(f);
    CHECK(strncmp(text, "Options:\n\n  -help\n       Print this help message", 48) == 0);
    CHECK(strstr(text, "\n  -rpcport=<port>\n       Listen for JSON-RPC connections on <port>") !=
          NULL);
    CHECK(strstr(text, "RPC server options:\n") != NULL);
    CHECK(strstr(text, "testwarmupms") == NULL); /* hidden */
    /* What bitnode ignores or refuses is hidden, reasons and empty sections included. */
    CHECK(strstr(text, "keypool") == NULL);
    CHECK(strstr(text, "signetseednode") == NULL);
    /* The ZMQ options have their section, as in Core. */
    CHECK(strstr(text, "ZeroMQ notification options:\n") != NULL);
    CHECK(strstr(text, "\n  -zmqpubrawtx=<address>\n       Enable publish raw transaction in "
                       "<address>") != NULL);
    CHECK(strstr(text, "Wallet options") == NULL);
    CHECK(strstr(text, "bitnode has no wallet") == NULL);
    CHECK(strstr(text, ARG_REASON_SEP) == NULL);
    CHECK(strstr(text, "\n  -dbcache=<n>\n") != NULL);
    free(text);
    args_free(a);
}

/* Core's config reader keeps keys, values and sections of any length (std::string): a long
 * line is read whole, never cut at a buffer's size. */
static void test_config_long_lines(void)
{
    struct args *a = args_new(bitnoded_options, bitnoded_options_len);
    size_t vlen = 5000, klen = 300;
    char *text = malloc(vlen + 1500 + 2 * klen + 200);
    char *p = text;
    p += sprintf(p, "rpcpassword=");
    memset(p, 'v', vlen);
    p += vlen;
    p += sprintf(p, "\nuacomment=");
    for (size_t i = 0; i < 1500; i++) {
        *p++ = (char)('a' + i % 26);
    }
    *p++ = '\n';
    *p++ = '[';
    memset(p, 's', klen); /* an unknown section of 300 bytes: its warning names all of it */
    p += klen;
    p += sprintf(p, "]\nrpcport=7\n");
    *p = 0;
    CHECK_EQ_INT(args_read_config(a, text, strlen(text), "b.conf", false, err, sizeof(err)), 0);
    const char *pw = args_get(a, "rpcpassword", "");
    CHECK_EQ_INT(strlen(pw), vlen);
    CHECK(pw[0] == 'v' && pw[vlen - 1] == 'v');
    const char *ua = args_get(a, "uacomment", "");
    CHECK_EQ_INT(strlen(ua), 1500);
    CHECK(ua[1499] == (char)('a' + 1499 % 26));
    int named = 0;
    for (size_t i = 0; i < args_warning_count(a); i++) {
        const char *s = strstr(args_warning(a, i), "Section [");
        named |= s && strlen(s) == strlen("Section [] is not recognized.") + klen;
    }
    CHECK(named);
    args_free(a);
    /* A key longer than 127 bytes is that whole key: an unknown option named in full, not
     * a known one cut to size. */
    a = args_new(bitnoded_options, bitnoded_options_len);
    p = text;
    memset(p, 'k', klen);
    p += klen;
    p += sprintf(p, "=1\n");
    *p = 0;
    CHECK_EQ_INT(args_read_config(a, text, strlen(text), "b.conf", false, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_INT(strlen(err), strlen("Invalid configuration value ") + klen);
    args_free(a);
    free(text);
}

static void test_time(void)
{
    char s[TIME_ISO_LEN];
    time_format_iso(s, 0);
    CHECK_EQ_STR(s, "1970-01-01T00:00:00Z");
    time_format_iso(s, 1796000523); /* 2026-11-30T01:02:03Z */
    CHECK_EQ_STR(s, "2026-11-30T01:02:03Z");
    int64_t a = time_mono_us();
    time_sleep_ms(2);
    CHECK(time_mono_us() - a >= 2000);
    /* A deadline is normalised (nanoseconds below a second) and lies ahead by what was
     * asked, across a second boundary too. */
    for (uint64_t ns = 0; ns <= 3000000000ull; ns += 999999999ull) {
        struct timespec before, d = time_deadline(CLOCK_MONOTONIC, ns), after;
        clock_gettime(CLOCK_MONOTONIC, &after);
        before = after;
        CHECK(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
        int64_t ahead = ((int64_t)d.tv_sec - (int64_t)before.tv_sec) * 1000000000LL +
                        (d.tv_nsec - before.tv_nsec);
        CHECK(ahead <= (int64_t)ns && ahead > (int64_t)ns - 50000000LL);
    }
}

int main(void)
{
    TEST(test_cmdline_forms);
    TEST(test_cmdline_last_wins_and_negation);
    TEST(test_cmdline_errors);
    TEST(test_validate);
    TEST(test_ignored);
    TEST(test_core_framework_options);
    TEST(test_option_table);
    TEST(test_config_precedence);
    TEST(test_config_main_chain);
    TEST(test_config_errors);
    TEST(test_config_long_lines);
    TEST(test_core_rules);
    TEST(test_chain_selection);
    TEST(test_chain_table_matches_params);
    TEST(test_log);
    TEST(test_fs);
    TEST(test_help_text);
    TEST(test_time);
    return test_done();
}
