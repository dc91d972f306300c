#!/usr/bin/env python3
"""Real mainnet history: -loadblock of mainnet blocks 0-438 (../shared/data) on main
parameters, with no peers, reaches Core's tip; gettxoutsetinfo (hash_serialized_3 and
muhash, txouts, total_amount) and getblockhash every 50 blocks equal Core's."""

import json
import os

from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until

SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("BITNODE_SHARED") or os.path.join(SRC, "..", "shared")
DATA = os.path.join(SHARED, "data", "mainnet-blocks-0-438")


class MainnetImportTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def run_test(self):
        if not os.path.isdir(DATA):
            if os.environ.get("BITNODE_REQUIRE_SHARED") == "1":
                raise AssertionError("%s not found" % DATA)
            self.log("skipped: %s not found" % DATA)
            return
        node = self.nodes[0]
        # A mainnet node: no chain subfolder, the RPC port at top level of the config.
        with open(os.path.join(node.datadir, "bitnode.conf"), "w") as f:
            f.write("rpcport=%d\nprinttoconsole=0\nlisten=0\ndnsseed=0\nfixedseeds=0\n" % node.rpc_port)
        node.net_dir = node.datadir
        exp = json.load(open(os.path.join(DATA, "expected.json")))
        node.start(["-loadblock=" + os.path.join(DATA, "blk-mainnet-0-438.dat")])
        wait_until(lambda: node.rpc("getblockcount") >= 438, timeout=120, what="height 438")
        assert_equal(node.rpc("getbestblockhash"), exp["tip"]["hash"])
        info = node.rpc("getblockchaininfo")
        assert_equal(info["chain"], "main")
        assert_equal(info["blocks"], 438)
        assert_true(info["initialblockdownload"], "2009's tip is far behind the minimum work")
        for h, want in exp["getblockhash_every_50"].items():
            assert_equal(node.rpc("getblockhash", int(h)), want)
        for kind in ("hash_serialized_3", "muhash"):
            got = node.rpc("gettxoutsetinfo", kind)
            want = exp["gettxoutsetinfo_tip"][kind]
            for k in ("height", "bestblock", "txouts", "bogosize", kind, "total_amount",
                      "transactions"):
                assert_equal(got[k], want[k])
        node.stop()


if __name__ == "__main__":
    MainnetImportTest().main()
