#!/usr/bin/env python3
"""The test helpers Bitcoin Core's functional test framework calls, and getdeploymentinfo.

- setmocktime moves the clock of the header time check: a header 3 hours ahead of the real
  time answers -25 "time-too-new" from submitheader, and is accepted once the clock is set 2
  hours ahead (Core's limit is 2 hours past the node's time); setmocktime 0 goes back to the
  real clock (a header 3 hours ahead is refused again). Out of [0, 2^32-1] answers Core's -8
  "Mocktime must be in the range [0, 4294967295], not N.", a fraction -1 "JSON integer out of
  range", a string -3.
- mockscheduler: 1 and 3600 answer null; 0, -5 and 3601 Core's -1 "delta_time must be
  between 1 and 3600 seconds (1 hr)".
- On signet both answer -1 "... is for regression testing (-regtest mode) only", and
  getdeploymentinfo lists the buried deployments only (testdummy never activates there).
- syncwithvalidationinterfacequeue answers null.
- getdeploymentinfo on regtest, compared with the answer written from Core's source
  (src/rpc/blockchain.cpp, src/kernel/chainparams.cpp, src/versionbits.cpp), key order
  included: at genesis; on the chain of Core's rpc_blockchain.py (blocks from 144 on signal
  bit 28), at 207 and 287 (STARTED, with statistics and the signalling string; status_next
  locked_in at 287), at 207 again by hash, at 288 (LOCKED_IN: no threshold nor possible), at
  431 (active for the next block) and 432 (ACTIVE); unknown and malformed hashes.
- bitnode-cli converts setmocktime's and mockscheduler's argument to a number (Core's
  client table), not echoipc's.
- echo, echojson, echoipc round-trip their arguments (positional and named);
  getzmqnotifications answers [] (no ZeroMQ publishers).
- help: the hidden methods are not in the overview, getdeploymentinfo and
  getzmqnotifications are (under "== Zmq =="), and `help METHOD` works for each.
"""

import os
import time

from blocktools import REGTEST_GENESIS, REGTEST_GENESIS_TIME, ChainBuilder
from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_raises_rpc_error,
                       assert_true)

SIGNET_GENESIS = "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"
NO_TIMEOUT = 0x7FFFFFFFFFFFFFFF
FLAGS_ALL = ["CHECKLOCKTIMEVERIFY", "CHECKSEQUENCEVERIFY", "DERSIG", "NULLDUMMY", "P2SH",
             "TAPROOT", "WITNESS"]
SIGNAL = 0x20000000 | (1 << 28)
HIDDEN = ["echo", "echojson", "echoipc", "setmocktime", "mockscheduler",
          "syncwithvalidationinterfacequeue", "generate", "getmempoolfeeratediagram"]


def buried(height, active=True):
    return {"type": "buried", "active": active, "height": height}


def regtest_buried():
    """Core's regtest heights (CRegTestParams) without -testactivationheight."""
    return {"bip34": buried(1), "bip66": buried(1), "bip65": buried(1), "csv": buried(1),
            "segwit": buried(0)}


def make_signet_node(node):
    """A framework TestNode (written for regtest) turned into a default-signet node."""
    node.net_dir = os.path.join(node.datadir, "signet")
    with open(os.path.join(node.datadir, "bitnode.conf"), "w") as f:
        f.write("signet=1\nrpcdoccheck=1\nlisten=0\ndnsseed=0\nfixedseeds=0\n[signet]\n"
                "rpcport=%d\nprinttoconsole=0\n" % node.rpc_port)


class RegtestRpcTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 2
        self.start_nodes_at_setup = False

    def run_test(self):
        self.node = self.nodes[0]
        self.node.start()
        make_signet_node(self.nodes[1])
        self.nodes[1].start()
        self.chain = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        self.tip = self.chain.genesis

        self.test_help()
        self.test_echo()
        self.test_sync_and_scheduler()
        self.test_deploymentinfo_genesis()
        self.test_deploymentinfo_signalling()
        self.test_mocktime()
        self.test_signet()
        self.nodes[1].stop()
        self.test_activation_heights()

    def test_activation_heights(self):
        self.log("-testactivationheight moves the buried deployments (Core's regtest option)")
        n = self.node
        n.stop()
        n.start(["-testactivationheight=segwit@400", "-testactivationheight=csv@300",
                 "-testactivationheight=bip34@2", "-testactivationheight=dersig@3",
                 "-testactivationheight=cltv@4"])
        d = n.rpc("getdeploymentinfo", REGTEST_GENESIS)
        heights = {k: v["height"] for k, v in d["deployments"].items() if "height" in v}
        assert_equal(heights, {"bip34": 2, "bip66": 3, "bip65": 4, "csv": 300, "segwit": 400})
        # NULLDUMMY comes with segwit; P2SH, WITNESS and TAPROOT apply from genesis (Core).
        assert_equal(d["script_flags"], ["P2SH", "TAPROOT", "WITNESS"])
        n.stop()
        n.start()

    # -- helpers ------------------------------------------------------------------------------

    def mine_to(self, height, version):
        """Submits blocks of this version on the tip until the tip is at height."""
        n = self.node
        while self.chain.height(self.tip) < height:
            b = self.chain.create_block(self.tip, version=version)
            assert_equal(n.rpc("submitblock", b.hex()), None)
            self.chain.add(b)
            self.tip = b.sha
        info = n.rpc("getblockchaininfo")
        assert_equal(info["blocks"], height)
        return info["bestblockhash"]

    # -- cases --------------------------------------------------------------------------------

    def test_help(self):
        self.log("help: hidden methods are not listed, the new visible ones are")
        n = self.node
        overview = n.rpc("help")
        lines = overview.split("\n")
        for m in HIDDEN:
            assert_true(not any(line.split(" ")[0] == m for line in lines), m + " is hidden")
            assert_true(n.rpc("help", m).startswith(m), "help " + m)
        assert_true("== Hidden ==" not in lines, "no Hidden section in the overview")
        assert_in("getdeploymentinfo ( \"blockhash\" )", lines)
        assert_in("== Zmq ==", lines)
        zmq = lines.index("== Zmq ==")
        assert_equal(lines[zmq + 1], "getzmqnotifications")
        assert_equal(n.rpc("help", "setmocktime").split("\n")[0], "setmocktime timestamp")
        assert_equal(n.rpc("help", "mockscheduler").split("\n")[0], "mockscheduler delta_time")
        assert_equal(n.rpc("help", "echoipc").split("\n")[0], "echoipc \"arg\"")

    def test_echo(self):
        self.log("echo, echojson, echoipc round-trip; getzmqnotifications is empty")
        n = self.node
        values = [1, "two", [3, {"4": None}], {"a": True}, None, 1.5, -7]
        assert_equal(n.rpc("echo", *values), values)
        assert_equal(n.rpc("echojson", *values), values)
        assert_equal(n.rpc("echo", arg1="x", arg3=4), [None, "x", None, 4])
        assert_equal(n.rpc("echojson", arg0=[1, 2]), [[1, 2]])
        assert_raises_rpc_error(-1, "Internal bug detected", n.rpc, "echo", *([None] * 9),
                                "trigger_internal_bug")
        assert_equal(n.rpc("echoipc", "Hello world"), "Hello world")
        assert_equal(n.rpc("echoipc", arg=""), "")
        assert_raises_rpc_error(-3, None, n.rpc, "echoipc", 5)
        assert_raises_rpc_error(-1, "echoipc \"arg\"", n.rpc, "echoipc")
        assert_raises_rpc_error(-1, "echoipc \"arg\"", n.rpc, "echoipc", "a", "b")
        assert_equal(n.rpc("getzmqnotifications"), [])

    def test_sync_and_scheduler(self):
        self.log("syncwithvalidationinterfacequeue; mockscheduler's argument")
        n = self.node
        assert_equal(n.rpc("syncwithvalidationinterfacequeue"), None)
        assert_raises_rpc_error(-1, "syncwithvalidationinterfacequeue", n.rpc,
                                "syncwithvalidationinterfacequeue", 1)
        for ok in (1, 60, 3600):
            assert_equal(n.rpc("mockscheduler", ok), None)
        assert_equal(n.rpc("mockscheduler", delta_time=5), None)
        for bad in (0, -5, 3601, 2 ** 40):
            assert_raises_rpc_error(-1, "delta_time must be between 1 and 3600 seconds (1 hr)",
                                    n.rpc, "mockscheduler", bad)
        assert_raises_rpc_error(-1, "JSON integer out of range", n.rpc, "mockscheduler", 1.5)
        assert_raises_rpc_error(-3, None, n.rpc, "mockscheduler", "5")
        assert_raises_rpc_error(-1, "mockscheduler delta_time", n.rpc, "mockscheduler")

    def test_deploymentinfo_genesis(self):
        self.log("getdeploymentinfo at the regtest genesis block")
        n = self.node
        want = {
            "hash": REGTEST_GENESIS,
            "height": 0,
            # Height 0: DERSIG, CLTV and CSV start at 1; segwit (NULLDUMMY) at 0.
            "script_flags": ["NULLDUMMY", "P2SH", "TAPROOT", "WITNESS"],
            "deployments": dict(regtest_buried(), testdummy={
                "type": "bip9",
                "active": False,
                "bip9": {
                    "start_time": 0,
                    "timeout": NO_TIMEOUT,
                    "min_activation_height": 0,
                    "status": "defined",
                    "since": 0,
                    "status_next": "defined",
                },
            }),
        }
        got = n.rpc("getdeploymentinfo")
        assert_equal(got, want)
        assert_equal(list(got), ["hash", "height", "script_flags", "deployments"])
        assert_equal(list(got["deployments"]),
                     ["bip34", "bip66", "bip65", "csv", "segwit", "testdummy"])
        assert_equal(list(got["deployments"]["testdummy"]), ["type", "active", "bip9"])
        assert_equal(list(got["deployments"]["bip34"]), ["type", "active", "height"])
        assert_equal(n.rpc("getdeploymentinfo", REGTEST_GENESIS), want)
        assert_equal(n.rpc("getdeploymentinfo", blockhash=REGTEST_GENESIS), want)
        assert_equal(n.rpc("getdeploymentinfo", None), want)
        assert_raises_rpc_error(-5, "Block not found", n.rpc, "getdeploymentinfo", "00" * 32)
        assert_raises_rpc_error(-8, "blockhash must be of length 64 (not 2, for 'ab')", n.rpc,
                                "getdeploymentinfo", "ab")
        assert_raises_rpc_error(-8, "blockhash must be hexadecimal string", n.rpc,
                                "getdeploymentinfo", "x" * 64)
        assert_raises_rpc_error(-3, None, n.rpc, "getdeploymentinfo", 5)

    def signalling_result(self, info, status_next):
        """Core's rpc_blockchain.py check_signalling_deploymentinfo_result, with regtest's
        default buried heights."""
        height = info["blocks"]
        return {
            "hash": info["bestblockhash"],
            "height": height,
            "script_flags": FLAGS_ALL,
            "deployments": dict(regtest_buried(), testdummy={
                "type": "bip9",
                "active": False,
                "bip9": {
                    "bit": 28,
                    "start_time": 0,
                    "timeout": NO_TIMEOUT,
                    "min_activation_height": 0,
                    "status": "started",
                    "since": 144,
                    "status_next": status_next,
                    "statistics": {
                        "period": 144,
                        "elapsed": height - 143,
                        "count": height - 143,
                        "threshold": 108,
                        "possible": True,
                    },
                    "signalling": "#" * (height - 143),
                },
            }),
        }

    def test_deploymentinfo_signalling(self):
        self.log("getdeploymentinfo while testdummy is signalled for (Core's rpc_blockchain.py)")
        n = self.node
        # Core's miner sets the bit only once the deployment has started (from 144).
        self.mine_to(143, 0x20000000)
        got = n.rpc("getdeploymentinfo")
        assert_equal(got["script_flags"], FLAGS_ALL)
        assert_equal(got["deployments"]["testdummy"]["bip9"]["status_next"], "started")
        self.mine_to(207, SIGNAL)
        info207 = n.rpc("getblockchaininfo")
        got = n.rpc("getdeploymentinfo")
        assert_equal(got, self.signalling_result(info207, "started"))
        assert_equal(list(got["deployments"]["testdummy"]), ["type", "active", "bip9"])
        assert_equal(list(got["deployments"]["testdummy"]["bip9"]),
                     ["bit", "start_time", "timeout", "min_activation_height", "status", "since",
                      "status_next", "statistics", "signalling"])
        assert_equal(list(got["deployments"]["testdummy"]["bip9"]["statistics"]),
                     ["period", "elapsed", "count", "threshold", "possible"])

        self.mine_to(287, SIGNAL)
        info287 = n.rpc("getblockchaininfo")
        assert_equal(n.rpc("getdeploymentinfo"), self.signalling_result(info287, "locked_in"))
        assert_equal(n.rpc("getdeploymentinfo", info207["bestblockhash"]),
                     self.signalling_result(info207, "started"))

        self.log("getdeploymentinfo through LOCKED_IN to ACTIVE")
        h288 = self.mine_to(288, SIGNAL)
        dummy = n.rpc("getdeploymentinfo")["deployments"]["testdummy"]
        assert_equal(dummy, {
            "type": "bip9",
            "active": False,
            "bip9": {"bit": 28, "start_time": 0, "timeout": NO_TIMEOUT,
                     "min_activation_height": 0, "status": "locked_in", "since": 288,
                     "status_next": "locked_in",
                     "statistics": {"period": 144, "elapsed": 1, "count": 1},
                     "signalling": "#"},
        })
        h431 = self.mine_to(431, 0x20000000)
        dummy = n.rpc("getdeploymentinfo")["deployments"]["testdummy"]
        assert_equal(dummy, {
            "type": "bip9",
            "height": 432,
            "active": True,
            "bip9": {"bit": 28, "start_time": 0, "timeout": NO_TIMEOUT,
                     "min_activation_height": 0, "status": "locked_in", "since": 288,
                     "status_next": "active",
                     "statistics": {"period": 144, "elapsed": 144, "count": 1},
                     "signalling": "#" + "-" * 143},
        })
        assert_equal(list(dummy), ["type", "height", "active", "bip9"])
        self.mine_to(440, 0x20000000)
        active = {
            "type": "bip9",
            "height": 432,
            "active": True,
            "bip9": {"start_time": 0, "timeout": NO_TIMEOUT, "min_activation_height": 0,
                     "status": "active", "since": 432, "status_next": "active"},
        }
        assert_equal(n.rpc("getdeploymentinfo")["deployments"]["testdummy"], active)
        assert_equal(n.rpc("getdeploymentinfo", h288)["deployments"]["testdummy"]["bip9"]
                     ["status"], "locked_in")
        assert_equal(n.rpc("getdeploymentinfo", h431)["deployments"]["testdummy"]["height"],
                     432)

    def test_mocktime(self):
        self.log("setmocktime moves the clock of the header time check")
        n = self.node
        now = int(time.time())
        b = self.chain.create_block(self.tip, time=now + 3 * 3600, solve=True)
        header = b.header().hex()
        assert_raises_rpc_error(-25, "time-too-new", n.rpc, "submitheader", header)
        assert_equal(n.rpc("setmocktime", now + 2 * 3600), None)
        assert_equal(n.rpc("submitheader", header), None)
        assert_equal(n.rpc("getblockheader", b.hash)["time"], now + 3 * 3600)
        self.chain.add(b)

        self.log("setmocktime 0 goes back to the real clock")
        assert_equal(n.rpc("setmocktime", 0), None)
        b2 = self.chain.create_block(b.sha, time=now + 3 * 3600 + 1, solve=True)
        assert_raises_rpc_error(-25, "time-too-new", n.rpc, "submitheader", b2.header().hex())
        assert_equal(n.rpc("setmocktime", timestamp=now + 2 * 3600), None)
        assert_equal(n.rpc("submitheader", b2.header().hex()), None)
        assert_equal(n.rpc("setmocktime", 0), None)

        self.log("setmocktime's argument")
        for bad in (-1, 2 ** 32, -(2 ** 40)):
            assert_raises_rpc_error(
                -8, "Mocktime must be in the range [0, 4294967295], not %d." % bad,
                n.rpc, "setmocktime", bad)
        assert_equal(n.rpc("setmocktime", 2 ** 32 - 1), None)
        assert_equal(n.rpc("setmocktime", 0), None)
        assert_raises_rpc_error(-1, "JSON integer out of range", n.rpc, "setmocktime", 1.5)
        assert_raises_rpc_error(-3, None, n.rpc, "setmocktime", "5")
        assert_raises_rpc_error(-1, "setmocktime timestamp", n.rpc, "setmocktime")

        self.log("bitnode-cli passes setmocktime's and mockscheduler's argument as a number")
        for args in (("setmocktime", "0"), ("mockscheduler", "1"), ("echoipc", "5")):
            r = n.cli(*args, check=True)
            assert_equal(r.stdout.strip(), "5" if args[0] == "echoipc" else "")

    def test_signet(self):
        self.log("off regtest: setmocktime and mockscheduler refuse, getdeploymentinfo")
        s = self.nodes[1]
        for m, arg in (("setmocktime", 1), ("mockscheduler", 1)):
            # Core checks the chain first, before it reads the argument.
            for a in (arg, -1, 1.5):
                assert_raises_rpc_error(
                    -1, "%s is for regression testing (-regtest mode) only" % m, s.rpc, m, a)
        assert_equal(s.rpc("syncwithvalidationinterfacequeue"), None)
        got = s.rpc("getdeploymentinfo")
        assert_equal(got, {
            "hash": SIGNET_GENESIS,
            "height": 0,
            "script_flags": ["P2SH", "TAPROOT", "WITNESS"],
            "deployments": {"bip34": buried(1), "bip66": buried(1), "bip65": buried(1),
                            "csv": buried(1), "segwit": buried(1)},
        })


if __name__ == "__main__":
    RegtestRpcTest().main()
