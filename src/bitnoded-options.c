/* bitnoded's options: names, kinds, -help sections and texts (Bitcoin Core's). The parsing is
 * util/args.c's.
 *
 * The table holds every option of Bitcoin Core's bitcoind (v31.99, built with a wallet and
 * ZMQ), so that a bitcoin.conf or a command line written for bitcoind is understood; an
 * option no bitcoind has stays an error ("Invalid parameter -foo"). What bitnode does not do
 * is flagged and ARG_HIDDEN, so that -help lists what it does. */
#include "options.h"

#include "util/check.h"

/* The reasons of the ARG_IGNORED options that share one (logged as "Ignoring -keypool: "
 * followed by the reason). */
#define NO_WALLET "bitnode has no wallet"
#define NO_TOR "bitnode has no Tor control yet"
#define NO_GUI "bitnode has no GUI"

const struct arg_def bitnoded_options[] = {
    {"help", ARG_BOOL | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "",
     "Print this help message and exit (also -h, -?)"},
    {"version", ARG_BOOL | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "", "Print version and exit"},
    {"includeconf", ARG_STRING | ARG_MULTI, ARGS_CAT_OPTIONS, "=<file>",
     "Specify additional configuration file, relative to the -datadir path (only useable from "
     "configuration file, not command line)"},
    {"conf", ARG_STRING | ARG_CMDLINE_ONLY, ARGS_CAT_OPTIONS, "=<file>",
     "Specify path to read-only configuration file. Relative paths will be prefixed by datadir "
     "location (default: bitcoin.conf)"},
    {"datadir", ARG_STRING | ARG_NO_NEGATION, ARGS_CAT_OPTIONS, "=<dir>",
     "Specify data directory (default: ~/.bitcoin)"},
    {"daemon", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Run in the background as a daemon and accept commands (default: 0)"},
    {"pid", ARG_STRING, ARGS_CAT_OPTIONS, "=<file>",
     "Specify pid file. Relative paths will be prefixed by a net-specific datadir location "
     "(default: bitcoind.pid)"},
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
    {"discover", ARG_BOOL, ARGS_CAT_CONN, "",
     "Discover own IP addresses (default: 1 when listening and no -externalip or -proxy)"},
    {"externalip", ARG_STRING | ARG_MULTI, ARGS_CAT_CONN, "=<ip>",
     "Specify your own public address"},
    {"upnp", ARG_BOOL | ARG_ONLY_OFF | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Use UPnP to map the listening port (only -upnp=0 is accepted)"},
    {"natpmp", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Use PCP or NAT-PMP to map the listening port (default: 1)"
     ARG_REASON("bitnode maps no ports (no PCP or NAT-PMP yet)")},
    {"listenonion", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Automatically create Tor onion service (default: 1)" ARG_REASON(NO_TOR)},
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
     "Maintain at most <n> automatic connections to peers (default: 125). 11 slots of these "
     "are reserved for outgoing connections. See -inboundrelaypercent for more information "
     "about limits applied to transaction relay inbound peers."},
    {"inboundrelaypercent", ARG_INT, ARGS_CAT_CONN, "=<n>",
     "Permit a maximum percent of inbound connections to relay transactions, to limit memory "
     "utilization (0 to 100, default: 50)."},
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
     "Support v2 transport (default: 1)"},
    {"minimumchainwork", ARG_STRING | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<hex>",
     "Minimum work assumed to exist on a valid chain in hex (default: the network's)"},
    {"proxy", ARG_STRING | ARG_NO_ELISION, ARGS_CAT_CONN, "=<ip:port>",
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
    {"zmqpubhashblock", ARG_STRING | ARG_MULTI, ARGS_CAT_ZMQ, "=<address>",
     "Enable publish hash block in <address>"},
    {"zmqpubhashtx", ARG_STRING | ARG_MULTI, ARGS_CAT_ZMQ, "=<address>",
     "Enable publish hash transaction in <address>"},
    {"zmqpubrawblock", ARG_STRING | ARG_MULTI, ARGS_CAT_ZMQ, "=<address>",
     "Enable publish raw block in <address>"},
    {"zmqpubrawtx", ARG_STRING | ARG_MULTI, ARGS_CAT_ZMQ, "=<address>",
     "Enable publish raw transaction in <address>"},
    {"zmqpubsequence", ARG_STRING | ARG_MULTI, ARGS_CAT_ZMQ, "=<address>",
     "Enable publish hash block and tx sequence in <address>"},
    {"zmqpubhashblockhwm", ARG_INT, ARGS_CAT_ZMQ, "=<n>",
     "Set publish hash block outbound message high water mark (default: 1000)"},
    {"zmqpubhashtxhwm", ARG_INT, ARGS_CAT_ZMQ, "=<n>",
     "Set publish hash transaction outbound message high water mark (default: 1000)"},
    {"zmqpubrawblockhwm", ARG_INT, ARGS_CAT_ZMQ, "=<n>",
     "Set publish raw block outbound message high water mark (default: 1000)"},
    {"zmqpubrawtxhwm", ARG_INT, ARGS_CAT_ZMQ, "=<n>",
     "Set publish raw transaction outbound message high water mark (default: 1000)"},
    {"zmqpubsequencehwm", ARG_INT, ARGS_CAT_ZMQ, "=<n>",
     "Set publish hash sequence message high water mark (default: 1000)"},
    {"blocknotify", ARG_STRING, ARGS_CAT_OPTIONS, "=<cmd>",
     "Execute command when the best block changes (%s in cmd is replaced by block hash)"},
    {"prune", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Reduce storage requirements by enabling pruning (deleting) of old blocks. This allows "
     "the pruneblockchain RPC to be called to delete specific blocks and enables automatic "
     "pruning of old blocks if a target size in MiB is provided. This mode is incompatible "
     "with -txindex. Warning: Reverting this setting requires re-downloading the entire "
     "blockchain. (default: 0 = disable pruning blocks, 1 = allow manual pruning via RPC, "
     ">=550 = automatically prune block files to stay under the specified target size in MiB)"},
    {"maxmempool", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Keep the transaction memory pool below <n> megabytes (default: 300). As in Bitcoin "
     "Core, what the mempool does not use is lent to the coins cache (-dbcache)"},
    {"mempoolexpiry", ARG_INT, ARGS_CAT_OPTIONS, "=<n>",
     "Do not keep transactions in the mempool longer than <n> hours (default: 336)"},
    {"minrelaytxfee", ARG_STRING, ARGS_CAT_RELAY, "=<amt>",
     "Fees (in BTC/kvB) smaller than this are considered zero fee for relaying, mining and "
     "transaction creation (default: 0.000001)"},
    {"disablewallet", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Do not load the wallet and disable wallet RPC calls" ARG_REASON(NO_WALLET)},
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
    {"dbbloombits", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Bloom filter bits per key in the block index and chainstate stores, for the LSM "
     "backends (leveldb, rocksdb; 0 = no filter; default: 10, as Core's LevelDB)"},
    {"dbchainstatemem", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Keep the chainstate store in memory (benchmarks only: it is lost at exit, and the next "
     "start connects every block again; default: 0)"},
    {"dbbackgroundflush", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Write coins flushes that need not be synced from a frozen generation of the cache, on "
     "a thread of their own, so that block connection goes on meanwhile; the cache may pass "
     "-dbcache by up to half while one is written (default: 1)"},
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
    {"rpcuser", ARG_STRING | ARG_SENSITIVE, ARGS_CAT_RPC, "=<user>",
     "Username for JSON-RPC connections"},
    {"rpcpassword", ARG_STRING | ARG_SENSITIVE, ARGS_CAT_RPC, "=<pw>",
     "Password for JSON-RPC connections"},
    {"rpcauth", ARG_STRING | ARG_MULTI | ARG_SENSITIVE, ARGS_CAT_RPC, "=<userpw>",
     "Username and HMAC-SHA-256 hashed password for JSON-RPC connections. The field <userpw> "
     "comes in the format: <USERNAME>:<SALT>$<HASH>. A canonical python script is included in "
     "share/rpcauth. This option can be specified multiple times"},
    {"rpccookiefile", ARG_STRING, ARGS_CAT_RPC, "=<loc>",
     "Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir "
     "location. (default: data dir)"},
    {"rpcthreads", ARG_INT, ARGS_CAT_RPC, "=<n>",
     "Set the number of threads to service RPC calls (default: 16)"},
    {"rpcworkqueue", ARG_INT | ARG_HIDDEN, ARGS_CAT_RPC, "=<n>",
     "Set the maximum depth of the work queue to service RPC calls (default: 64)"},
    {"rpcservertimeout", ARG_INT | ARG_HIDDEN, ARGS_CAT_RPC, "=<n>",
     "Timeout during HTTP requests (default: 30)"},
    {"rpcdoccheck", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_RPC, "",
     "Throw a non-fatal error at runtime if the documentation for an RPC is incorrect (default: "
     "0)"},

    /* The rest of Core's options (v31.99's bitcoind, built with a wallet and ZMQ): accepted,
     * so that a bitcoin.conf or a command line written for bitcoind starts bitnoded, and
     * hidden from -help, which lists what bitnode does. Each is one of:
     *   ARG_IGNORED   nothing here depends on it (the wallet, the mempool's policy, Tor
     *                 control, port mapping, log cosmetics): the daemon logs its reason;
     *   ARG_ONLY_OFF  the off form is what bitnode does anyway (-rest=0, -upnp=0);
     *   ARG_NOT_IMPL  going on without it would mislead whoever asked (a command to run, a
     *                 consensus test parameter, a network to reach): refused by name. */

    /* Core's "Options". */
    {"alertnotify", ARG_STRING, ARGS_CAT_OPTIONS, "=<cmd>",
     "Execute command when an alert is raised (%s in cmd is replaced by message)"},
    {"blocksdir", ARG_STRING, ARGS_CAT_OPTIONS, "=<dir>",
     "Specify directory to hold blocks subdirectory for *.dat files (default: <datadir>)"},
    {"blocksxor", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Whether an XOR-key applies to blocksdir *.dat files. The created XOR-key will be zeros "
     "for an existing blocksdir or when `-blocksxor=0` is set, and random for a freshly "
     "initialized blocksdir. (default: 1)"},
    {"blockreconstructionextratxn", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS,
     "=<n>",
     "Extra transactions to keep in memory for compact block reconstructions (default: 100)"
     ARG_REASON("bitnode keeps no extra transactions for compact blocks yet")},
    {"blocksonly", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Whether to reject transactions from network peers. Disables automatic broadcast and "
     "rebroadcast of transactions, unless the source peer has the 'forcerelay' permission. RPC "
     "transactions are not affected. (default: 0)"},
    {"coinstatsindex", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Maintain coinstats index used by the gettxoutsetinfo RPC (default: 0)"},
    {"allowignoredconf", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "For backwards compatibility, treat an unused bitcoin.conf file in the datadir as a "
     "warning, not an error."},
    {"prevoutfetchthreads", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "=<n>",
     "Set the number of threads used to prefetch block input prevouts from the chainstate "
     "database (0 disables, up to 16, default: 8). Negative values are rejected."
     ARG_REASON("bitnode has no prevout-fetch threads; -par sets its script threads")},
    {"persistmempool", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Whether to save the mempool on shutdown and load on restart (default: 1)"},
    {"persistmempoolv1", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Whether a mempool.dat file created by -persistmempool or the savemempool RPC will be "
     "written in the legacy format (version 1) or the current format (version 2). This "
     "temporary option will be removed in the future. (default: 0)"},
    {"settings", ARG_STRING, ARGS_CAT_OPTIONS, "=<file>",
     "Specify path to dynamic settings data file. Can be disabled with -nosettings. File is "
     "written at runtime and not meant to be edited by users (use bitcoin.conf instead for "
     "custom settings). Relative paths will be prefixed by datadir location. (default: "
     "settings.json)"},
    {"startupnotify", ARG_STRING, ARGS_CAT_OPTIONS, "=<cmd>",
     "Execute command on startup."},
    {"shutdownnotify", ARG_STRING | ARG_MULTI, ARGS_CAT_OPTIONS, "=<cmd>",
     "Execute command immediately before beginning shutdown. The need for shutdown may be "
     "urgent, so be careful not to delay it long (if the command doesn't require interaction "
     "with the server, consider having it fork into the background)."},
    {"txospenderindex", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Maintain a transaction output spender index, used by the gettxspendingprevout rpc call "
     "(default: 0)"},
    {"blockfilterindex", ARG_STRING, ARGS_CAT_OPTIONS, "=<type>",
     "Maintain an index of compact filters by block (default: 0, values: basic). If <type> is "
     "not supplied or if <type> = 1, indexes for all known types are enabled."},
    {"daemonwait", ARG_BOOL, ARGS_CAT_OPTIONS, "",
     "Wait for initialization to be finished before exiting. This implies -daemon (default: "
     "0)"},
    /* Core's hidden ones: a database compaction and the GUI's (bitcoind accepts those). */
    {"forcecompactdb", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "",
     "Compact the databases on start-up (hidden in Core)"
     ARG_REASON("bitnode does not compact its databases on request")},
    {"choosedatadir", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "",
     "Choose data directory on startup (GUI)" ARG_REASON(NO_GUI)},
    {"lang", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "=<lang>",
     "Set language, for example \"de_DE\" (GUI)" ARG_REASON(NO_GUI)},
    {"min", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "",
     "Start minimized (GUI)" ARG_REASON(NO_GUI)},
    {"resetguisettings", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "",
     "Reset all settings changed in the GUI" ARG_REASON(NO_GUI)},
    {"splash", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "",
     "Show splash screen on startup (GUI)" ARG_REASON(NO_GUI)},
    {"uiplatform", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_OPTIONS, "=<platform>",
     "Select platform to customize UI for (GUI)" ARG_REASON(NO_GUI)},

    /* Core's "Chain selection options": the test-only ones change consensus rules. */
    {"testactivationheight", ARG_STRING | ARG_MULTI | ARG_HIDDEN, ARGS_CAT_CHAIN,
     "=name@height.",
     "Set the activation height of 'name' (segwit, bip34, dersig, cltv, csv). (test-only)"},
    {"vbparams", ARG_STRING | ARG_MULTI | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CHAIN,
     "=deployment:start:end[:min_activation_height]",
     "Use given start/end times and min_activation_height for specified version bits "
     "deployment (test-only)"},
    {"signetseednode", ARG_STRING | ARG_MULTI | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CHAIN, "",
     "Specify a seed node for the signet network, in the hostname[:port] format, e.g. "
     "sig.net:1234 (may be used multiple times to specify multiple seed nodes; defaults to the "
     "global default signet test network seed node(s))"},

    /* Core's "Connection options" bitnode has not got yet. */
    {"asmap", ARG_STRING | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CONN, "=<file>",
     "Specify asn mapping used for bucketing of the peers. Relative paths will be prefixed by "
     "the net-specific datadir location. If a bool arg is given (-asmap or -asmap=1), the "
     "embedded mapping data in the binary will be used."},
    {"cjdnsreachable", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "If set, then this host is configured for CJDNS (connecting to fc00::/8 addresses would "
     "lead us to the CJDNS network, see doc/cjdns.md) (default: 0)"
     ARG_REASON("bitnode makes no CJDNS connections; -rpcallowip and addpeeraddress read it")},
    {"dns", ARG_BOOL | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Allow DNS lookups for -addnode, -seednode and -connect (default: 1)"},
    {"forcednsseed", ARG_BOOL | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Always query for peer addresses via DNS lookup (default: 0)"},
    {"maxreceivebuffer", ARG_INT | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CONN, "=<n>",
     "Maximum per-connection receive buffer, <n>*1000 bytes (default: 5000)"},
    {"maxsendbuffer", ARG_INT | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CONN, "=<n>",
     "Maximum per-connection memory usage for the send buffer, <n>*1000 bytes (default: "
     "1000)"},
    {"maxuploadtarget", ARG_STRING, ARGS_CAT_CONN, "=<n>",
     "Tries to keep outbound traffic under the given target per 24h. Limit does not apply to "
     "peers with 'download' permission or blocks created within past week. 0 = no limit "
     "(default: 0M). Optional suffix units [k|K|m|M|g|G|t|T] (default: M). Lowercase is 1000 "
     "base while uppercase is 1024 base"},
    {"i2psam", ARG_STRING | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_CONN, "=<ip:port>",
     "I2P SAM proxy to reach I2P peers and accept I2P connections"},
    {"i2pacceptincoming", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Whether to accept inbound I2P connections (default: 1). Ignored if -i2psam is not set. "
     "Listening for inbound I2P connections is done through the SAM proxy, not by binding to "
     "a local address and port."
     ARG_REASON("ignored without -i2psam (as in Core), which bitnode has not got yet")},
    {"peerbloomfilters", ARG_BOOL, ARGS_CAT_CONN, "",
     "Support filtering of blocks and transaction with bloom filters (default: 0)"},
    {"peerblockfilters", ARG_BOOL, ARGS_CAT_CONN, "",
     "Serve compact block filters to peers per BIP 157 (default: 0)"},
    {"txreconciliation", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_CONN, "",
     "Enable transaction reconciliations per BIP 330 (default: 0)"},
    {"torcontrol", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_CONN, "=<ip>:<port>",
     "Tor control host and port to use if onion listening enabled (default: 127.0.0.1:9051). "
     "If no port is specified, the default port of 9051 will be used." ARG_REASON(NO_TOR)},
    {"torpassword", ARG_STRING | ARG_IGNORED | ARG_HIDDEN | ARG_SENSITIVE, ARGS_CAT_CONN, "=<pass>",
     "Tor control port password (default: empty)" ARG_REASON(NO_TOR)},

    /* Core's "Wallet options" (a Core built without a wallet accepts them too). */
    {"addresstype", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "What type of addresses to use (\"legacy\", \"p2sh-segwit\", \"bech32\", \"bech32m\", "
     "default: \"bech32\")" ARG_REASON(NO_WALLET)},
    {"avoidpartialspends", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Group outputs by address, selecting many (possibly all) or none, instead of selecting on "
     "a per-output basis. Privacy is improved as addresses are mostly swept with fewer "
     "transactions and outputs are aggregated in clean change addresses. It may result in "
     "higher fees due to less optimal coin selection caused by this added limitation and "
     "possibly a larger-than-necessary number of inputs being used. Always enabled for "
     "wallets with \"avoid_reuse\" enabled, otherwise default: 0." ARG_REASON(NO_WALLET)},
    {"changetype", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "What type of change to use (\"legacy\", \"p2sh-segwit\", \"bech32\", \"bech32m\"). "
     "Default is \"legacy\" when -addresstype=legacy, else it is an implementation detail."
     ARG_REASON(NO_WALLET)},
    {"consolidatefeerate", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<amt>",
     "The maximum feerate (in BTC/kvB) at which transaction building may use more inputs than "
     "strictly necessary so that the wallet's UTXO pool can be reduced (default: 0.0001)."
     ARG_REASON(NO_WALLET)},
    {"discardfee", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<amt>",
     "The fee rate (in BTC/kvB) that indicates your tolerance for discarding change by adding "
     "it to the fee (default: 0.0001). Note: An output is discarded if it is dust at this "
     "rate, but we will always discard up to the dust relay fee and a discard fee above that "
     "is limited by the fee estimate for the longest target" ARG_REASON(NO_WALLET)},
    {"fallbackfee", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<amt>",
     "A fee rate (in BTC/kvB) that will be used when fee estimation has insufficient data. 0 "
     "to entirely disable the fallbackfee feature. (default: 0.00)" ARG_REASON(NO_WALLET)},
    {"keypool", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<n>",
     "Set key pool size to <n> (default: 1000). Warning: Smaller sizes may increase the risk "
     "of losing funds when restoring from an old backup, if none of the addresses in the "
     "original keypool have been used." ARG_REASON(NO_WALLET)},
    {"maxapsfee", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<n>",
     "Spend up to this amount in additional (absolute) fees (in BTC) if it allows the use of "
     "partial spend avoidance (default: 0.00)" ARG_REASON(NO_WALLET)},
    {"maxtxfee", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<amt>",
     "Maximum total fees (in BTC) to use in a single wallet transaction; setting this too low "
     "may abort large transactions (default: 0.10)" ARG_REASON(NO_WALLET)},
    {"mintxfee", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<amt>",
     "Fee rates (in BTC/kvB) smaller than this are considered zero fee for transaction "
     "creation (default: 0.00001)" ARG_REASON(NO_WALLET)},
    {"signer", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<cmd>",
     "External signing tool, see doc/external-signer.md" ARG_REASON(NO_WALLET)},
    {"spendzeroconfchange", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Spend unconfirmed change when sending transactions (default: 1)" ARG_REASON(NO_WALLET)},
    {"txconfirmtarget", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<n>",
     "Include enough fee so transactions begin confirmation on average within n blocks "
     "(default: 6)" ARG_REASON(NO_WALLET)},
    {"wallet", ARG_STRING | ARG_MULTI | ARG_NETWORK_ONLY | ARG_IGNORED | ARG_HIDDEN,
     ARGS_CAT_WALLET, "=<path>",
     "Specify wallet path to load at startup. Can be used multiple times to load multiple "
     "wallets. Path is to a directory containing wallet data and log files. If the path is not "
     "absolute, it is interpreted relative to <walletdir>. This only loads existing wallets "
     "and does not create new ones. For backwards compatibility this also accepts names of "
     "existing top-level data files in <walletdir>." ARG_REASON(NO_WALLET)},
    {"walletbroadcast", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Make the wallet broadcast transactions (default: 1)" ARG_REASON(NO_WALLET)},
    {"walletdir", ARG_STRING | ARG_NETWORK_ONLY | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET,
     "=<dir>",
     "Specify directory to hold wallets (default: <datadir>/wallets if it exists, otherwise "
     "<datadir>)" ARG_REASON(NO_WALLET)},
    {"walletnotify", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "=<cmd>",
     "Execute command when a wallet transaction changes. %s in cmd is replaced by TxID, %w is "
     "replaced by wallet name, %b is replaced by the hash of the block including the "
     "transaction (set to 'unconfirmed' if the transaction is not included) and %h is "
     "replaced by the block height (-1 if not included). %w is not currently implemented on "
     "windows. On systems where %w is supported, it should NOT be quoted because this would "
     "break shell escaping used to invoke the command." ARG_REASON(NO_WALLET)},
    {"walletrbf", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "(DEPRECATED) Send transactions with full-RBF opt-in enabled (default: 1)"
     ARG_REASON(NO_WALLET)},
    {"unsafesqlitesync", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Set SQLite synchronous=OFF to disable waiting for the database to sync to disk. This is "
     "unsafe and can cause data loss and corruption. This option is only used by tests to "
     "improve their performance (default: false)" ARG_REASON(NO_WALLET)},
    {"walletrejectlongchains", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Wallet will not create transactions that violate mempool chain limits (default: 1)"
     ARG_REASON(NO_WALLET)},
    {"walletcrosschain", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_WALLET, "",
     "Allow reusing wallet files across chains (default: 0)" ARG_REASON(NO_WALLET)},

    /* Core's "Debugging/Testing options". */
    {"help-debug", ARG_BOOL | ARG_CMDLINE_ONLY | ARG_NOT_IMPL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Print help message with debugging options and exit"},
    {"checkblocks", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "How many blocks to check at startup (default: 6, 0 = all)"},
    {"checklevel", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "How thorough the block verification of -checkblocks is: level 0 reads the blocks from "
     "disk, level 1 verifies block validity, level 2 verifies undo data, level 3 checks "
     "disconnection of tip blocks, level 4 tries to reconnect the blocks, each level includes "
     "the checks of the previous levels (0-4, default: 3)"},
    {"checkblockindex", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Do a consistency check for the block tree, chainstate, and other validation data "
     "structures every <n> operations. Use 0 to disable. (default: 0, regtest: 1)"
     ARG_REASON("bitnode has no periodic block-tree consistency check")},
    {"checkaddrman", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Run addrman consistency checks every <n> operations. Use 0 to disable. (default: 0)"
     ARG_REASON("bitnode has no addrman consistency check")},
    {"checkmempool", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Run mempool consistency checks every <n> transactions. Use 0 to disable. (default: 0, "
     "regtest: 1)" ARG_REASON("bitnode has no mempool consistency check")},
    {"checkpoints", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Removed from Core (hidden there)"
     ARG_REASON("checkpoints were removed; the option has no effect (as in Core)")},
    {"deprecatedrpc", ARG_STRING | ARG_MULTI | ARG_HIDDEN, ARGS_CAT_DEBUG,
     "=<method>", "Allows deprecated RPC method(s) to be used"},
    {"stopafterblockimport", ARG_BOOL | ARG_ONLY_OFF | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Stop running after importing blocks from disk (default: 0)"},
    {"limitancestorcount", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Deprecated setting to not accept transactions if number of in-mempool ancestors is <n> "
     "or more (default: 25); replaced by cluster limits (see -limitclustercount) and only used "
     "by wallet for coin selection" ARG_REASON("replaced by cluster limits; only Core's wallet reads it")},
    {"limitancestorsize", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Removed from Core (hidden there)"
     ARG_REASON("replaced by cluster size limits; the option has no effect (as in Core)")},
    {"limitdescendantsize", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Removed from Core (hidden there)"
     ARG_REASON("replaced by cluster size limits; the option has no effect (as in Core)")},
    {"limitdescendantcount", ARG_STRING | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Deprecated setting to not accept transactions if any ancestor would have <n> or more "
     "in-mempool descendants (default: 25); replaced by cluster limits (see "
     "-limitclustercount) and only used by wallet for coin selection" ARG_REASON("replaced by cluster limits; only Core's wallet reads it")},
    {"test", ARG_STRING | ARG_MULTI | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<option>",
     "Pass a test-only option. Options include : addrman (use deterministic addrman), "
     "reindex_after_failure_noninteractive_yes (When asked for a reindex after failure "
     "interactively, simulate as-if answered with 'yes'), bip94 (enforce BIP94 consensus "
     "rules)."},
    {"limitclustercount", ARG_INT, ARGS_CAT_DEBUG, "=<n>",
     "Do not accept transactions into mempool which are directly or indirectly connected to "
     "<n> or more other unconfirmed transactions (default: 64, maximum: 64)"},
    {"limitclustersize", ARG_INT, ARGS_CAT_DEBUG, "=<n>",
     "Do not accept transactions whose virtual size with all in-mempool connected transactions "
     "exceeds <n> kilobytes (default: 101)"},
    {"capturemessages", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Capture all P2P messages to disk"},
    {"mocktime", ARG_INT | ARG_HIDDEN, ARGS_CAT_DEBUG, "=<n>",
     "Replace actual time with UNIX epoch time (default: 0)"},
    {"printpriority", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Log transaction fee rate in BTC/kvB when mining blocks (default: 0)" ARG_REASON("bitnode does not log the fee rates of the transactions it mines")},
    {"uacomment", ARG_STRING | ARG_MULTI, ARGS_CAT_DEBUG, "=<cmt>",
     "Append comment to the user agent string"},
    {"acceptstalefeeestimates", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Read fee estimates even if they are stale (regtest only; default: 0) fee estimates are "
     "considered stale if they are 60 hours old"},
    {"fastprune", ARG_BOOL | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Use smaller block files and lower minimum prune height for testing purposes"},
    {"logips", ARG_BOOL, ARGS_CAT_DEBUG, "", "Include IP addresses in log output (default: 0)"},
    {"loglevel",
     ARG_STRING | ARG_MULTI | ARG_IGNORED | ARG_HIDDEN | ARG_NO_NEGATION | ARG_NO_ELISION,
     ARGS_CAT_DEBUG, /* checked */
     "=<level>|<category>:<level>",
     "Set the global or per-category severity level for logging categories enabled with the "
     "-debug configuration option or the logging RPC. Possible values are trace, debug, info, "
     "warning, error (default=debug). The following levels are always logged: error, warning, "
     "info. If <category>:<level> is supplied, the setting will override the global one and "
     "may be specified multiple times to set multiple category-specific levels. <category> "
     "can be: the -debug categories."
     ARG_REASON("bitnode logs at one level; -debug selects categories")},
    {"logsourcelocations", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Prepend debug output with name of the originating source location (source file, line "
     "number and function name) (default: 0)"
     ARG_REASON("bitnode's log lines carry no source locations")},
    {"loglevelalways", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Always prepend a category and level (default: 0)"
     ARG_REASON("bitnode's line prefixes are fixed ([net], [rpc:warning], [error])")},
    {"logratelimit", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Apply rate limiting to unconditional logging to mitigate disk-filling attacks (default: "
     "1)" ARG_REASON("bitnode does not rate-limit its log")},
    {"shrinkdebugfile", ARG_BOOL | ARG_IGNORED | ARG_HIDDEN, ARGS_CAT_DEBUG, "",
     "Shrink debug log file on client startup (default: 1 when no -debug)"
     ARG_REASON("bitnode does not shrink debug.log")},

    /* Core's "Node relay options": policy for a mempool bitnode has not got yet. */
    {"acceptnonstdtxn", ARG_BOOL, ARGS_CAT_RELAY, "",
     "Relay and mine \"non-standard\" transactions (test networks only; default: 0)"},
    {"incrementalrelayfee", ARG_STRING, ARGS_CAT_RELAY, "=<amt>",
     "Fee rate (in BTC/kvB) used to define cost of relay, used for mempool limiting and "
     "replacement policy. (default: 0.000001)"},
    {"dustrelayfee", ARG_STRING, ARGS_CAT_RELAY, "=<amt>",
     "Fee rate (in BTC/kvB) used to define dust, the value of an output such that it will "
     "cost more than its value in fees at this fee rate to spend it. (default: 0.00003)"},
    {"bytespersigop", ARG_INT, ARGS_CAT_RELAY, "",
     "Equivalent bytes per sigop in transactions for relay and mining (default: 20)"},
    {"datacarrier", ARG_BOOL, ARGS_CAT_RELAY, "",
     "Relay and mine data carrier transactions (default: 1)"},
    {"datacarriersize", ARG_INT, ARGS_CAT_RELAY, "",
     "Relay and mine transactions whose data-carrying raw scriptPubKeys in aggregate are of "
     "this size or less, allowing multiple outputs (default: 100000)"},
    {"permitbaremultisig", ARG_BOOL, ARGS_CAT_RELAY, "",
     "Relay transactions creating non-P2SH multisig outputs (default: 1)"},
    {"txsendrate", ARG_INT | ARG_HIDDEN, ARGS_CAT_RELAY, "=<n>",
     "Set the maximum ongoing rate for sending transactions to (inbound) peers (default: 14 "
     "tx/s)"},
    {"privatebroadcast", ARG_BOOL | ARG_ONLY_OFF | ARG_HIDDEN, ARGS_CAT_RELAY, "",
     "Broadcast transactions submitted via sendrawtransaction RPC using short-lived "
     "connections through the Tor or I2P networks, without putting them in the mempool first. "
     "Transactions submitted through the wallet are not affected by this option (default: 0)"},
    {"whitelistforcerelay", ARG_BOOL, ARGS_CAT_RELAY, "",
     "Add 'forcerelay' permission to whitelisted peers with default permissions. This will "
     "relay transactions even if the transactions were already in the mempool. (default: 0)"},
    {"whitelistrelay", ARG_BOOL, ARGS_CAT_RELAY, "",
     "Add 'relay' permission to whitelisted peers with default permissions. This will accept "
     "relayed transactions even when not relaying transactions (default: 1)"},

    /* Core's "Block creation options": bitnode has no mining RPCs. */
    {"blockmaxweight", ARG_INT, ARGS_CAT_MINING, "=<n>",
     "Set maximum BIP141 block weight (default: 4000000)"},
    {"blockreservedweight", ARG_INT, ARGS_CAT_MINING, "=<n>",
     "Reserve space for the fixed-size block header plus the largest coinbase transaction the "
     "mining software may add to the block. Only affects mining RPC clients, not IPC clients. "
     "(default: 8000)."},
    {"blockmintxfee", ARG_STRING, ARGS_CAT_MINING, "=<amt>",
     "Set lowest fee rate (in BTC/kvB) for transactions to be included in block creation. "
     "(default: 0.00000001)"},
    {"blockversion", ARG_INT | ARG_HIDDEN, ARGS_CAT_MINING, "=<n>",
     "Override block version to test forking scenarios"},

    /* Core's "RPC server options". */
    {"rest", ARG_BOOL, ARGS_CAT_RPC, "",
     "Accept public REST requests (default: 0)"},
    {"rpccookieperms", ARG_STRING, ARGS_CAT_RPC, "=<readable-by>",
     "Set permissions on the RPC auth cookie file so that it is readable by "
     "[owner|group|all] (default: owner [via umask 0077])"},
    {"rpcwhitelist", ARG_STRING | ARG_MULTI, ARGS_CAT_RPC,
     "=<whitelist>",
     "Set a whitelist to filter incoming RPC calls for a specific user. The field <whitelist> "
     "comes in the format: <USERNAME>:<rpc 1>,<rpc 2>,...,<rpc n>. If multiple whitelists are "
     "set for a given user, they are set-intersected. See -rpcwhitelistdefault documentation "
     "for information on default whitelist behavior."},
    {"rpcwhitelistdefault", ARG_BOOL, ARGS_CAT_RPC, "",
     "Sets default behavior for rpc whitelisting. Unless rpcwhitelistdefault is set to 0, if "
     "any -rpcwhitelist is set, the rpc server acts as if all rpc users are subject to "
     "empty-unless-otherwise-specified whitelists. If rpcwhitelistdefault is set to 1 and no "
     "-rpcwhitelist is set, rpc server acts as if all rpc users are subject to empty "
     "whitelists."},
};
const size_t bitnoded_options_len = ARRAY_LEN(bitnoded_options);
