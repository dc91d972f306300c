#!/usr/bin/env python3
"""Options and the config file: sections, precedence, -conf, warnings for network-only
options outside their section, and start-up refusals for bad or unimplemented options.

Last, bitnoded started the way Core's test framework starts bitcoind: the bitcoin.conf its
util.py write_config writes and the arguments its test_node.py passes. Core's options that
bitnode ignores are accepted, each with one debug.log line "Ignoring -<name>: <reason>"; an
option no bitcoind has still stops start-up with Core's message."""

import os
import re
import signal
import socket
import subprocess

from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, free_port, wait_until


def core_framework_conf(p2p_port, rpc_port):
    """The bitcoin.conf of Core's test_framework/util.py write_config (regtest, node 0), with
    the bind=127.0.0.1 that add_nodes appends (bind_to_localhost_only)."""
    return ("regtest=1\n[regtest]\nport=%d\nrpcport=%d\nrpcservertimeout=99000\nrpcdoccheck=1\n"
            "rpcthreads=2\nfallbackfee=0.0002\nserver=1\nkeypool=1\ndiscover=0\ndnsseed=0\n"
            "fixedseeds=0\nlistenonion=0\npeertimeout=999999999\nprinttoconsole=0\nnatpmp=0\n"
            "shrinkdebugfile=0\nunsafesqlitesync=1\nconnect=0\nmaxconnections=94\npar=2\n"
            "prevoutfetchthreads=1\nbind=127.0.0.1\n" % (p2p_port, rpc_port))


# The arguments of Core's test_node.py (TestNode.args, -datadir apart: the framework adds it),
# with -disablewallet (uses_wallet False) and -conf for bitnode's default file name.
CORE_FRAMEWORK_ARGS = ["-conf=bitcoin.conf", "-logtimemicros", "-debug", "-debugexclude=leveldb",
                       "-debugexclude=rand", "-uacomment=testnode0", "-disablewallet",
                       "-logthreadnames", "-logsourcelocations", "-loglevel=trace",
                       "-nologratelimit", "-v2transport=0"]
# What Core's tests often add with extra_args (noban_tx_relay, consistency checks, policy).
CORE_EXTRA_ARGS = ["-whitelist=noban,in,out@127.0.0.1", "-checkblockindex=1", "-checkaddrman=1",
                   "-checkmempool=1", "-persistmempool=0", "-acceptnonstdtxn=1"]
# The options of both that bitnode ignores, with the reason it logs for each.
CORE_IGNORED = {
    "fallbackfee": "bitnode has no wallet",
    "keypool": "bitnode has no wallet",
    "unsafesqlitesync": "bitnode has no wallet",
    "disablewallet": "bitnode has no wallet",
    "listenonion": "bitnode has no Tor control yet",
    "natpmp": "bitnode maps no ports (no PCP or NAT-PMP yet)",
    "shrinkdebugfile": "bitnode does not shrink debug.log",
    "prevoutfetchthreads": "bitnode has no prevout-fetch threads; -par sets its script threads",
    "logsourcelocations": "bitnode's log lines carry no source locations",
    "loglevel": "bitnode logs at one level; -debug selects categories",
    "logratelimit": "bitnode does not rate-limit its log",
    "checkblockindex": "bitnode has no periodic block-tree consistency check",
    "checkaddrman": "bitnode has no addrman consistency check",
    "checkmempool": "bitnode has no mempool consistency check",
}


class ConfigTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def write_conf(self, node, text, name="bitnode.conf"):
        with open(os.path.join(node.datadir, name), "w") as f:
            f.write(text)

    def run_test(self):
        node = self.nodes[0]

        self.log("unknown and malformed options stop start-up with a message naming them")
        node.assert_start_fails(["-frobnicate"],
                                "Error parsing command line arguments: Invalid parameter -frobnicate")
        node.assert_start_fails(["-rpcthreads=many"],
                                "Invalid value for -rpcthreads: 'many' (expected an integer)")
        node.assert_start_fails(["-rpcport=70000"], "Invalid port specified in -rpcport: '70000'")
        node.assert_start_fails(["-port=0"], "Invalid port specified in -port: '0'")
        node.assert_start_fails(["-dbbloombits=65"], "-dbbloombits must be in 0-64")
        node.assert_start_fails(["-testnet"], "Invalid combination of -regtest, -signet, "
                                "-testnet, -testnet4 and -chain. Can use at most one.")
        node.assert_start_fails(["-debug=nosuch"], "Unsupported logging category -debug=nosuch.")
        node.assert_start_fails(["-test=nosuch"],
                                'Unrecognised option "nosuch" provided in -test=<option>.')
        node.assert_start_fails(["unexpected"], "Command line contains unexpected token 'unexpected'")
        node.assert_start_fails(["-assumevalid=xyz"], "Invalid assumevalid block hash "
                                "specified (xyz), must be up to 64 hex digits (or 0 to disable)")
        for opt in ["-privatebroadcast"]:
            name = opt.split("=")[0]
            node.assert_start_fails([opt], "%s: not implemented yet (only %s=0 is accepted)"
                                    % (name, name))
        node.assert_start_fails(["-i2psam=127.0.0.1:7656"], "-i2psam: not implemented yet")
        node.assert_start_fails(["-datadir=" + os.path.join(self.tmpdir, "missing")],
                                "does not exist")
        node.assert_start_fails(["-conf=nosuch.conf"], "could not be opened")
        # -maxmempool: 0 or at least 40 clusters' worth, as Core (its unused part is the
        # coins cache's).
        node.assert_start_fails(["-maxmempool=4"], "-maxmempool must be at least 5 MB")
        node.assert_start_fails(["-maxmempool=-1"], "-maxmempool must be at least 5 MB")
        # -testactivationheight (regtest): Core's names and messages.
        node.assert_start_fails(["-testactivationheight=segwit"], "Invalid format (segwit) "
                                "for -testactivationheight=name@height.")
        node.assert_start_fails(["-testactivationheight=segwit@x"], "Invalid height value "
                                "(segwit@x) for -testactivationheight=name@height.")
        node.assert_start_fails(["-testactivationheight=taproot@5"], "Invalid name "
                                "(taproot@5) for -testactivationheight=name@height.")

        self.log("an operator's bitcoin.conf asking for what bitnode does anyway starts")
        original = open(os.path.join(node.datadir, "bitnode.conf")).read()
        self.write_conf(node, "listen=0\ndnsseed=0\nupnp=0\nprune=0\ndisablewallet=1\n"
                        "connect=0\nmaxmempool=0\n" + original + "port=%d\n" % free_port(with_next=True))
        node.start([])
        # The genesis block is connected by the import thread once RPC is up (as Core's):
        # the first answer may still be -1.
        wait_until(lambda: node.rpc("getblockcount") == 0, what="the genesis block connected")
        node.stop()
        self.write_conf(node, original)

        self.log("unknown config keys (skipped with a warning, as bitcoind) and parse errors")
        good = open(os.path.join(node.datadir, "bitnode.conf")).read()
        self.write_conf(node, good + "frobnicate=1\n")
        node.start()
        node.stop()
        # Core names the key with the section it is in (the framework's file ends in [regtest]).
        assert_in("[warning] Ignoring unknown configuration value regtest.frobnicate",
                  open(node.debug_log).read())
        self.write_conf(node, good + "noserver\n")
        node.assert_start_fails([], "if you intended to specify a negated option, use noserver=1 instead")
        self.write_conf(node, good + "rpcthreads=abc\n")
        node.assert_start_fails([], "Invalid value for -rpcthreads: 'abc'")
        self.write_conf(node, good)

        self.log("[regtest] section beats the top level for network-only options")
        top_port = free_port()
        self.write_conf(node, "regtest=1\nlisten=0\nrpcport=%d\nrpcthreads=2\n[regtest]\nprinttoconsole=0\n"
                        "rpcport=%d\n[test]\nrpcport=1\n" % (top_port, node.rpc_port))
        node.start()
        assert_equal(type(node.rpc("uptime")), int)
        s = socket.socket()
        assert_true(s.connect_ex(("127.0.0.1", top_port)) != 0, "top-level port not bound")
        s.close()
        node.stop()

        self.log("a top-level rpcport alone is ignored on regtest, with Core's warning")
        self.write_conf(node, "regtest=1\nlisten=0\nrpcport=%d\nprinttoconsole=0\n" % top_port)
        os.remove(node.debug_log)
        node.start(["-server=0"], wait=False)
        wait_until(lambda: os.path.exists(node.debug_log) and
                   "Done loading" in open(node.debug_log).read(), what="start-up")
        node.process.send_signal(signal.SIGTERM)
        assert_equal(node.wait_exit(), 0)
        with open(node.debug_log) as f:
            log = f.read()
        assert_in("[warning] Config setting for -rpcport only applied on regtest network when "
                  "in [regtest] section.", log)
        assert_in("Warning: Config setting for -rpcport only applied on regtest network",
                  node.stderr_text())
        node.process = None

        self.log("-conf with a relative path, and the command line beating the file")
        self.write_conf(node, "regtest=1\n[regtest]\nrpcport=1\nprinttoconsole=0\n"
                        "rpcuser=fromfile\nrpcpassword=filepw\n", name="other.conf")
        node.start(["-conf=other.conf", "-rpcport=%d" % node.rpc_port, "-rpcpassword=cmdpw",
                    "-rpcuser=cmd"], wait=False)
        node.auth = ("cmd", "cmdpw")
        node.wait_for_rpc()
        assert_true(not os.path.exists(os.path.join(node.net_dir, ".cookie")),
                    "no cookie with -rpcpassword")
        node.stop()
        node.auth = None

        self.log("-chain=regtest and -regtest are the same chain; -pid and -debuglogfile paths")
        self.write_conf(node, "[regtest]\nprinttoconsole=0\nrpcport=%d\n" % node.rpc_port)
        node.start(["-chain=regtest", "-pid=my.pid", "-debuglogfile=" +
                    os.path.join(self.tmpdir, "custom.log")])
        assert_true(os.path.exists(os.path.join(node.net_dir, "my.pid")), "custom pid file")
        node.stop()
        assert_true(not os.path.exists(os.path.join(node.net_dir, "my.pid")), "pid removed")
        assert_in("Shutdown: done", open(os.path.join(self.tmpdir, "custom.log")).read())

        self.log("Core's log options: -logtimemicros, -nologtimestamps, -logthreadnames")
        micro_log = os.path.join(self.tmpdir, "micros.log")
        node.start(["-chain=regtest", "-logtimemicros", "-debuglogfile=" + micro_log])
        node.stop()
        lines = [l for l in open(micro_log).read().splitlines() if "Shutdown: done" in l]
        assert_true(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z Shutdown: done$",
                             lines[-1]), lines)
        plain_log = os.path.join(self.tmpdir, "plain.log")
        node.start(["-chain=regtest", "-nologtimestamps", "-debuglogfile=" + plain_log])
        node.stop()
        lines = [l for l in open(plain_log).read().splitlines() if "Shutdown: done" in l]
        assert_equal(lines[-1], "Shutdown: done")
        names_log = os.path.join(self.tmpdir, "names.log")
        node.start(["-chain=regtest", "-nologtimestamps", "-logthreadnames", "-par=2",
                    "-debug=rpc", "-debuglogfile=" + names_log])
        node.rpc("getblockcount")
        node.stop()
        text = open(names_log).read()
        assert_in("\n[main] Shutdown: done\n", text)
        assert_true(re.search(r"\n\[httpworker\.\d+\] ", text), "no line from an RPC worker")

        self.log("datadir= in a -conf file moves the datadir (the default one, under $HOME, "
                 "not made)")
        other = os.path.join(self.tmpdir, "other_datadir")
        os.mkdir(other)
        conf_path = os.path.join(self.tmpdir, "outside.conf")
        with open(conf_path, "w") as f:
            f.write("datadir=%s\nregtest=1\n[regtest]\nrpcport=%d\nprinttoconsole=0\n"
                    % (other, node.rpc_port))
        env = dict(os.environ, HOME=self.tmpdir)
        p = subprocess.Popen([node.bitnoded, "-conf=" + conf_path], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            cookie = os.path.join(other, "regtest", ".cookie")
            wait_until(lambda: os.path.exists(cookie) or p.poll() is not None, what="cookie")
            assert_true(os.path.exists(cookie), "cookie in the configured datadir")
            # The default datadir was only looked in for a config file: not created (Core's).
            assert_true(not os.path.exists(os.path.join(self.tmpdir, ".bitcoin")),
                        "default datadir not created")
            p.send_signal(signal.SIGTERM)
            assert_equal(p.wait(timeout=30), 0)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()

        self.log("Core's test framework: its bitcoin.conf and arguments start bitnoded")
        harness_conf = core_framework_conf(node.p2p_port, node.rpc_port)
        self.write_conf(node, harness_conf, name="bitcoin.conf")
        if os.path.exists(node.debug_log):
            os.remove(node.debug_log)
        node.start(CORE_FRAMEWORK_ARGS + CORE_EXTRA_ARGS)
        wait_until(lambda: node.rpc("getblockcount") == 0, what="the genesis block connected")
        assert_equal(node.rpc("getnetworkinfo")["connections"], 0)  # connect=0
        node.stop()
        with open(node.debug_log) as f:
            harness_log = f.read()

        self.log("an option no bitcoind has still stops that start-up on the command line, and "
                 "is skipped in the file, as by bitcoind")
        node.assert_start_fails(CORE_FRAMEWORK_ARGS + ["-frobnicate"], "Error parsing command "
                                "line arguments: Invalid parameter -frobnicate")
        self.write_conf(node, harness_conf + "frobnicate=1\n[main]\nwalletnotfy=1\n",
                        name="bitcoin.conf")
        node.start(CORE_FRAMEWORK_ARGS)
        node.stop()
        with open(node.debug_log) as f:
            text = f.read()
        assert_in("Ignoring unknown configuration value regtest.frobnicate", text)
        assert_in("Ignoring unknown configuration value main.walletnotfy", text)

        self.log("each ignored option of that start-up has one debug.log line with its reason")
        logged = {}
        for line in harness_log.splitlines():
            m = re.search(r"Ignoring -([a-z0-9-]+): (.*)$", line)
            if m:
                assert_true(m.group(1) not in logged, "-%s logged twice" % m.group(1))
                logged[m.group(1)] = m.group(2)
        assert_equal(logged, CORE_IGNORED)


if __name__ == "__main__":
    ConfigTest().main()
