/* bitnode-cli's options (bitcoin-cli's names and texts). The parsing is util/args.c's. */
#include "options.h"

#include "util/check.h"

const struct arg_def bitnode_cli_options[] = {
    {"help", ARG_BOOL | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "",
     "Print this help message and exit (also -h, -?)"},
    {"version", ARG_BOOL | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "", "Print version and exit"},
    {"conf", ARG_STRING | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "=<file>",
     "Specify configuration file. Relative paths will be prefixed by datadir location. "
     "(default: bitcoin.conf)"},
    {"datadir", ARG_STRING | ARG_NO_NEGATION, ARGS_CAT_OPTIONS, "=<dir>", "Specify data directory"},
    {"chain", ARG_STRING, ARGS_CAT_CHAIN, "=<chain>",
     "Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, "
     "regtest"},
    {"regtest", ARG_BOOL, ARGS_CAT_CHAIN, "", "Equivalent to -chain=regtest"},
    {"testnet", ARG_BOOL, ARGS_CAT_CHAIN, "", "Use the testnet3 chain. Equivalent to -chain=test"},
    {"testnet4", ARG_BOOL, ARGS_CAT_CHAIN, "", "Use the testnet4 chain. Equivalent to -chain=testnet4"},
    {"signet", ARG_BOOL, ARGS_CAT_CHAIN, "", "Use the signet chain. Equivalent to -chain=signet"},
    {"rpcconnect", ARG_STRING, ARGS_CAT_CLI, "=<ip>",
     "Send commands to node running on <ip> (default: 127.0.0.1)"},
    {"rpcport", ARG_INT | ARG_NETWORK_ONLY, ARGS_CAT_CLI, "=<port>",
     "Connect to JSON-RPC on <port> (default: 8332, testnet3: 18332, testnet4: 48332, signet: "
     "38332, regtest: 18443)"},
    {"rpcuser", ARG_STRING, ARGS_CAT_CLI, "=<user>", "Username for JSON-RPC connections"},
    {"rpcpassword", ARG_STRING, ARGS_CAT_CLI, "=<pw>", "Password for JSON-RPC connections"},
    {"rpccookiefile", ARG_STRING, ARGS_CAT_CLI, "=<loc>",
     "Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir "
     "location. (default: data dir)"},
    {"rpcclienttimeout", ARG_INT, ARGS_CAT_CLI, "=<n>",
     "Timeout in seconds during HTTP requests, or 0 for no timeout. (default: 900)"},
    {"rpcwait", ARG_BOOL, ARGS_CAT_CLI, "", "Wait for RPC server to start"},
    {"rpcwaittimeout", ARG_INT | ARG_NO_NEGATION, ARGS_CAT_CLI, "=<n>",
     "Timeout in seconds to wait for the RPC server to start, or 0 for no timeout. (default: "
     "0)"},
    {"named", ARG_BOOL, ARGS_CAT_CLI, "", "Pass named instead of positional arguments (default: false)"},
    {"stdin", ARG_BOOL, ARGS_CAT_CLI, "",
     "Read extra arguments from standard input, one per line until EOF/Ctrl-D (recommended "
     "for sensitive information such as passphrases). When combined with -stdinrpcpass, the "
     "first line from standard input is used for the RPC password."},
    {"stdinrpcpass", ARG_BOOL, ARGS_CAT_CLI, "",
     "Read RPC password from standard input as a single line. When combined with -stdin, the "
     "first line from standard input is used for the RPC password."},
    {"getinfo", ARG_BOOL, ARGS_CAT_CLI, "", "Get general information from the remote server."},
};
const size_t bitnode_cli_options_len = ARRAY_LEN(bitnode_cli_options);
