/* bitnoded's options: names, kinds, -help sections and texts (Bitcoin Core's, where bitnode
 * has the option). The parsing is util/args.c's. */
#include "options.h"

#include "util/check.h"

const struct arg_def bitnoded_options[] = {
    {"help", ARG_BOOL | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "",
     "Print this help message and exit (also -h, -?)"},
    {"version", ARG_BOOL | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "", "Print version and exit"},
    {"conf", ARG_STRING | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "=<file>",
     "Specify path to read-only configuration file. Relative paths will be prefixed by datadir "
     "location (default: bitnode.conf)"},
    {"datadir", ARG_STRING, ARGS_CAT_OPTIONS, "=<dir>", "Specify data directory (default: ~/.bitnode)"},
    {"daemon", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Run in the background as a daemon and accept commands (default: 0)"},
    {"pid", ARG_STRING, ARGS_CAT_OPTIONS, "=<file>",
     "Specify pid file. Relative paths will be prefixed by a net-specific datadir location "
     "(default: bitnoded.pid)"},
    {"dbcache", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Maximum database cache size <n> MiB (default: 450)"},
    {"par", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Set the number of script verification threads (0 = auto, up to 15, <0 = leave that "
     "many cores free, default: 0)"},
    {"maxsigcachesize", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Limit sum of signature cache and script execution cache sizes to <n> MiB (default: 32)"},
    {"loadblock", ARG_STRING | ARG_MULTI, ARGS_CAT_OPTIONS, "=<file>",
     "Imports blocks from external file on startup"},
    {"reindex", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Rebuild chain state and block index from the blk*.dat files on disk"},
    {"reindex-chainstate", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Rebuild chain state from the currently indexed blocks"},
    {"txindex", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Maintain a full transaction index, used by the getrawtransaction rpc call (default: 0)"},
    {"stopatheight", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Stop running after reaching the given height in the main chain (default: 0)"},
    {"assumevalid", ARG_STRING, ARGS_CAT_OPTIONS, "=<hex>",
     "If this block is in the chain assume that it and its ancestors are valid and potentially "
     "skip their script verification (0 to verify all)"},
    {"chain", ARG_STRING, ARGS_CAT_CHAIN, "=<chain>",
     "Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, "
     "regtest"},
    {"regtest", ARG_BOOL, ARGS_CAT_CHAIN, "", "Equivalent to -chain=regtest"},
    {"testnet", ARG_BOOL, ARGS_CAT_CHAIN, "", "Use the testnet3 chain. Equivalent to -chain=test"},
    {"testnet4", ARG_BOOL, ARGS_CAT_CHAIN, "", "Use the testnet4 chain. Equivalent to -chain=testnet4"},
    {"signet", ARG_BOOL, ARGS_CAT_CHAIN, "", "Use the signet chain. Equivalent to -chain=signet"},
    {"signetchallenge", ARG_STRING | ARG_MULTI | ARG_NETWORK_ONLY, ARGS_CAT_CHAIN, "",
     "Blocks must satisfy the given script to be considered valid (only for signet networks; "
     "defaults to the global default signet test network challenge)"},
    {"listen", ARG_BOOL, ARGS_CAT_CONN, "",
     "Accept connections from outside (default: 1 if no -proxy, -connect or "
     "-maxconnections=0)"},
    {"dnsseed", ARG_BOOL, ARGS_CAT_CONN, "",
     "Query for peer addresses via DNS lookup, if low on addresses (default: 1 unless -connect "
     "used or -maxconnections=0)"},
    {"fixedseeds", ARG_BOOL, ARGS_CAT_CONN, "",
     "Allow fixed seeds if DNS seeds don't provide peers (default: 1)"},
    {"discover", ARG_BOOL | ARG_ONLY_OFF, ARGS_CAT_CONN, "",
     "Discover own IP addresses (only -discover=0 is accepted yet)"},
    {"upnp", ARG_BOOL | ARG_ONLY_OFF | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Use UPnP to map the listening port (only -upnp=0 is accepted)"},
    {"natpmp", ARG_BOOL | ARG_ONLY_OFF, ARGS_CAT_CONN, "",
     "Use PCP or NAT-PMP to map the listening port (only -natpmp=0 is accepted yet)"},
    {"listenonion", ARG_BOOL | ARG_ONLY_OFF, ARGS_CAT_CONN, "",
     "Automatically create Tor onion service (only -listenonion=0 is accepted yet)"},
    {"port", ARG_INT | ARG_NETWORK_ONLY, ARGS_CAT_CONN, "=<port>",
     "Listen for connections on <port> (default: 8333, testnet3: 18333, testnet4: 48333, "
     "signet: 38333, regtest: 18444)"},
    {"bind", ARG_STRING | ARG_MULTI | ARG_NETWORK_ONLY, ARGS_CAT_CONN, "=<addr>[:<port>]",
     "Bind to given address and always listen on it (default: 0.0.0.0). Use [host]:port "
     "notation for IPv6"},
    {"whitebind", ARG_STRING | ARG_MULTI | ARG_NETWORK_ONLY, ARGS_CAT_CONN,
     "=<[permissions@]addr>",
     "Bind to the given address and add permission flags to the peers connecting to it. Use "
     "[host]:port notation for IPv6. Allowed permissions: bloomfilter, noban, forcerelay, "
     "relay, mempool, download, addr. Specify multiple permissions separated by commas "
     "(default: download,noban,mempool,relay)"},
    {"whitelist", ARG_STRING | ARG_MULTI, ARGS_CAT_CONN, "=<[permissions@]IP address or network>",
     "Add permission flags to the peers using the given IP address (e.g. 1.2.3.4) or CIDR-"
     "notated network (e.g. 1.2.3.0/24). Uses the same permissions as -whitebind"},
    {"connect", ARG_STRING | ARG_MULTI, ARGS_CAT_CONN, "=<ip>",
     "Connect only to the specified node; -noconnect disables automatic connections (the "
     "rules for this peer are the same as for -addnode). This option can be specified "
     "multiple times to connect to multiple nodes."},
    {"addnode", ARG_STRING | ARG_MULTI, ARGS_CAT_CONN, "=<ip>",
     "Add a node to connect to and attempt to keep the connection open (see the addnode RPC "
     "help for more info). This option can be specified multiple times to add multiple nodes"},
    {"seednode", ARG_STRING | ARG_MULTI, ARGS_CAT_CONN, "=<ip>",
     "Connect to a node to retrieve peer addresses, and disconnect. This option can be "
     "specified multiple times to connect to multiple nodes"},
    {"maxconnections", ARG_INT, ARGS_CAT_CONN, "=<n>",
     "Maintain at most <n> automatic connections to peers (default: 125)"},
    {"networkactive", ARG_BOOL, ARGS_CAT_CONN, "",
     "Enable all P2P network activity (default: 1). Can be changed by the setnetworkactive "
     "RPC command"},
    {"peertimeout", ARG_INT | ARG_HIDDEN, ARGS_CAT_CONN, "=<n>",
     "Specify a p2p connection timeout delay in seconds. After connecting to a peer, wait this "
     "amount of time before considering disconnection based on inactivity (minimum: 1, "
     "default: 60)"},
    {"timeout", ARG_INT, ARGS_CAT_CONN, "=<n>",
     "Specify socket connection timeout in milliseconds. If an initial attempt to connect is "
     "unsuccessful after this amount of time, drop it (minimum: 1, default: 5000)"},
    {"bantime", ARG_INT, ARGS_CAT_CONN, "=<n>",
     "Default duration (in seconds) of manually configured bans (default: 86400)"},
    {"v2transport", ARG_BOOL, ARGS_CAT_CONN, "",
     "Support v2 transport (default: 1). bitnode speaks v1 only: BIP324 needs ElligatorSwift, "
     "which Debian's libsecp256k1 0.2.0 lacks; the option is accepted and logged"},
    {"minimumchainwork", ARG_STRING | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<hex>",
     "Minimum work assumed to exist on a valid chain in hex (default: the network's)"},
    {"proxy", ARG_STRING, ARGS_CAT_CONN, "=<ip:port>",
     "Connect through SOCKS5 proxy, set -noproxy to disable (default: disabled)"},
    {"onion", ARG_STRING, ARGS_CAT_CONN, "=<ip:port>",
     "Use separate SOCKS5 proxy to reach peers via Tor onion services, set -noonion to "
     "disable (default: -proxy)"},
    {"proxyrandomize", ARG_BOOL, ARGS_CAT_CONN, "",
     "Randomize credentials for every proxy connection. This enables Tor stream isolation "
     "(default: 1)"},
    {"onlynet", ARG_STRING | ARG_MULTI, ARGS_CAT_CONN, "=<net>",
     "Make automatic outbound connections only to network <net> (ipv4, ipv6, onion, i2p, "
     "cjdns). Inbound and manual connections are not affected by this option. It can be "
     "specified multiple times to allow multiple networks."},
    {"maxtipage", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Maximum tip age in seconds to consider node in initial block download (default: 86400)"},
    {"zmqpubhashblock", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_CONN, "=<address>",
     "Enable publish hash block in <address>"},
    {"zmqpubhashtx", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_CONN, "=<address>",
     "Enable publish hash transaction in <address>"},
    {"zmqpubrawblock", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_CONN, "=<address>",
     "Enable publish raw block in <address>"},
    {"zmqpubrawtx", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_CONN, "=<address>",
     "Enable publish raw transaction in <address>"},
    {"zmqpubsequence", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_CONN, "=<address>",
     "Enable publish hash block and tx sequence in <address>"},
    {"blocknotify", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_OPTIONS, "=<cmd>",
     "Execute command when the best block changes (%s in cmd is replaced by block hash)"},
    {"prune", ARG_INT | ARG_ONLY_OFF, ARGS_CAT_OPTIONS, "=<n>",
     "Reduce storage requirements by pruning old blocks (only -prune=0, the default, is "
     "accepted yet)"},
    {"maxmempool", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Keep the transaction memory pool below <n> megabytes (default: 300). As in Bitcoin "
     "Core, what the mempool does not use is shared with the coins cache (-dbcache); bitnode "
     "has no mempool yet, so all of it is"},
    {"mempoolexpiry", ARG_INT | ARG_NOT_IMPL, ARGS_CAT_OPTIONS, "=<n>",
     "Do not keep transactions in the mempool longer than <n> hours"},
    {"minrelaytxfee", ARG_STRING | ARG_NOT_IMPL, ARGS_CAT_OPTIONS, "=<amt>",
     "Fees (in BTC/kvB) smaller than this are considered zero fee for relaying"},
    {"disablewallet", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_OPTIONS, "",
     "Accepted and ignored, as by a Bitcoin Core built without a wallet: bitnode has none"},
    {"debug", ARG_STRING | ARG_MULTI, ARGS_CAT_DEBUG, "=<category>",
     "Output debug and trace logging (default: -nodebug). If <category> is not supplied or if "
     "<category> is 1 or all, output all debug logging. <category> can be: net, validation, "
     "coindb, blockstorage, rpc, http, kv, bench, reindex. This option can be specified "
     "multiple times to output multiple categories."},
    {"debugexclude", ARG_STRING | ARG_MULTI, ARGS_CAT_DEBUG, "=<category>",
     "Exclude debug and trace logging for a category. Can be used in conjunction with -debug=1 "
     "to output debug logs for all categories except the specified category."},
    {"debuglogfile", ARG_STRING, ARGS_CAT_DEBUG, "=<file>",
     "Specify location of debug log file (default: debug.log). Relative paths will be prefixed "
     "by a net-specific datadir location. Pass -nodebuglogfile to disable writing the log to a "
     "file."},
    {"logtimestamps", ARG_BOOL, ARGS_CAT_DEBUG, "",
     "Prepend debug output with timestamp (default: 1)"},
    {"logtimemicros", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Add microsecond precision to debug timestamps (default: 0)"},
    {"logthreadnames", ARG_BOOL, ARGS_CAT_DEBUG, "",
     "Prepend debug output with name of the originating thread (default: 0)"},
    {"printtoconsole", ARG_BOOL, ARGS_CAT_DEBUG, "",
     "Send trace/debug info to console (default: 1 when no -daemon. To disable logging to "
     "file, set -nodebuglogfile)"},
    {"dbbatchsize", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Maximum database write batch size in bytes (default: 16777216)"},
    {"dbcrashratio", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Randomly crash while writing data at a given rate (0-32767, 0 = never; default: 0)"},
    {"testflushblocks", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Flush the chainstate after every <n> connected blocks (crash-recovery tests)"},
    {"testwarmupms", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<ms>",
     "Stay in RPC warm-up (error -28) for <ms> milliseconds after start-up (for tests)"},
    {"server", ARG_BOOL, ARGS_CAT_RPC, "", "Accept command line and JSON-RPC commands (default: 1)"},
    {"rpcbind", ARG_STRING | ARG_MULTI | ARG_NETWORK_ONLY, ARGS_CAT_RPC, "=<addr>[:port]",
     "Bind to given address to listen for JSON-RPC connections. Do not expose the RPC server "
     "to untrusted networks such as the public internet! This option is ignored unless "
     "-rpcallowip is also passed. Port is optional and overrides -rpcport. (default: "
     "127.0.0.1 and ::1)"},
    {"rpcport", ARG_INT | ARG_NETWORK_ONLY, ARGS_CAT_RPC, "=<port>",
     "Listen for JSON-RPC connections on <port> (default: 8332, testnet3: 18332, testnet4: "
     "48332, signet: 38332, regtest: 18443)"},
    {"rpcallowip", ARG_STRING | ARG_MULTI, ARGS_CAT_RPC, "=<ip>",
     "Allow JSON-RPC connections from specified source. Valid values for <ip> are a single IP "
     "(e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0) or a network/CIDR (e.g. "
     "1.2.3.4/24). This option can be specified multiple times"},
    {"rpcuser", ARG_STRING, ARGS_CAT_RPC, "=<user>", "Username for JSON-RPC connections"},
    {"rpcpassword", ARG_STRING, ARGS_CAT_RPC, "=<pw>", "Password for JSON-RPC connections"},
    {"rpcauth", ARG_STRING | ARG_MULTI, ARGS_CAT_RPC, "=<userpw>",
     "Username and HMAC-SHA-256 hashed password for JSON-RPC connections. The field <userpw> "
     "comes in the format: <USERNAME>:<SALT>$<HASH>. A canonical python script is included in "
     "share/rpcauth. This option can be specified multiple times"},
    {"rpccookiefile", ARG_STRING, ARGS_CAT_RPC, "=<loc>",
     "Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir "
     "location. (default: data dir)"},
    {"rpcthreads", ARG_INT, ARGS_CAT_RPC, "=<n>",
     "Set the number of threads to service RPC calls (default: 4)"},
    {"rpcworkqueue", ARG_INT, ARGS_CAT_RPC, "=<n>",
     "Set the maximum depth of the work queue to service RPC calls (default: 16)"},
    {"rpcservertimeout", ARG_INT | ARG_HIDDEN, ARGS_CAT_RPC, "=<n>",
     "Timeout during HTTP requests (default: 30)"},
    {"rpcdoccheck", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_RPC, "",
     "Throw a non-fatal error at runtime if the documentation for an RPC is incorrect (default: "
     "0)"},
};
const size_t bitnoded_options_len = ARRAY_LEN(bitnoded_options);
