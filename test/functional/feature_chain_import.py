#!/usr/bin/env python3
"""The node's main job: -loadblock of the bundled regtest chain (test/data/regtest-small)
reaches Core's tip, and the RPC answers equal Core's saved answers: getblockchaininfo,
gettxoutsetinfo (hash_serialized_3 and muhash, txouts, amounts), getblockhash every 100
blocks, getblock <hash> 2 for every sample block and getrawtransaction <txid> true <block>
for every sample transaction, field for field, getchaintxstats. Then stop and restart (same state),
-reindex-chainstate and -reindex (same UTXO hashes), and the reorg data set: arrival order
and shuffled, with Core's getchaintips."""

import glob
import json
import os

from framework import (assert_in, BitnodeTestFramework, assert_equal, assert_true, wait_until,
                       assert_raises_rpc_error)

SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
SHARED = os.environ.get("BITNODE_SHARED") or os.path.join(SRC, "..", "shared")
REORG = os.path.join(SHARED, "data", "regtest-reorg")

# Fields that are the node's own business (README of regtest-small), and one that depends on
# the clock: initialblockdownload turns true once the sample chain's tip is a day old.
IMPL_FIELDS = {"disk_size", "size_on_disk", "warnings", "verificationprogress",
               "initialblockdownload"}


def strip(d):
    return {k: v for k, v in d.items() if k not in IMPL_FIELDS}


class ChainImportTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def wait_height(self, node, height):
        wait_until(lambda: node.rpc("getblockcount") >= height, timeout=120,
                   what="height %d" % height)

    def check_utxo(self, node, expected):
        for kind in ("hash_serialized_3", "muhash"):
            got = node.rpc("gettxoutsetinfo", kind)
            want = expected[kind]
            for k in ("height", "bestblock", "txouts", "bogosize", kind, "total_amount"):
                assert_equal(got[k], want[k])
            if kind == "hash_serialized_3":
                assert_equal(got["transactions"], want["transactions"])

    def run_test(self):
        node = self.nodes[0]
        exp = json.load(open(os.path.join(SMALL, "expected.json")))

        self.log("-loadblock of regtest-small reaches Core's tip")
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), "-txindex"])
        self.wait_height(node, 1300)
        assert_equal(node.rpc("getbestblockhash"), exp["tip"]["hash"])
        wait_until(lambda: node.rpc("getindexinfo")["txindex"]["synced"], what="txindex")
        assert_equal(node.rpc("getindexinfo"),
                     {"txindex": {"synced": True, "best_block_height": 1300}})
        info = node.rpc("getblockchaininfo")
        assert_equal(strip(info), strip(exp["getblockchaininfo"]))
        assert_true(isinstance(info["initialblockdownload"], bool), "initialblockdownload")
        self.check_utxo(node, exp["gettxoutsetinfo_tip"])
        for h, want in exp["getblockhash_every_100"].items():
            assert_equal(node.rpc("getblockhash", int(h)), want)
        assert_raises_rpc_error(-8, "Block height out of range", node.rpc, "getblockhash", 1301)
        self.log("getchaintxstats equals Core's at the tip; its window and errors as Core's")
        assert_equal(node.rpc("getchaintxstats"), exp["getchaintxstats_tip"])
        h700 = node.rpc("getblockhash", 700)
        one = node.rpc("getchaintxstats", 1, h700)
        assert_equal((one["window_final_block_height"], one["window_block_count"]), (700, 1))
        assert_equal(one["window_tx_count"], node.rpc("getblock", h700)["nTx"])
        zero = node.rpc("getchaintxstats", 0)
        assert_true("window_interval" not in zero and "txrate" not in zero, "an empty window")
        assert_raises_rpc_error(-8, "Invalid block count: should be between 0 and the block's "
                                "height - 1", node.rpc, "getchaintxstats", 1300)
        assert_raises_rpc_error(-8, "Invalid block count", node.rpc, "getchaintxstats", -1)
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "getchaintxstats", 1, "00" * 32)

        self.log("getblock <hash> 2 and getblockheader equal Core's for every sample block")
        files = sorted(glob.glob(os.path.join(SMALL, "blocks", "getblock_*.json")))
        assert_true(len(files) >= 10, "sample blocks present")
        for path in files:
            want = json.load(open(path))
            got = node.rpc("getblock", want["hash"], 2)
            assert_equal(got, want)
            hdr = node.rpc("getblockheader", want["hash"])
            for k in hdr:
                assert_equal(hdr[k], want[k])
            raw = open(path.replace("getblock_", "block_").replace(".json", ".hex")).read().strip()
            assert_equal(node.rpc("getblock", want["hash"], 0), raw)

        self.log("getrawtransaction <txid> true (-txindex) equals Core's for every sample")
        txfiles = sorted(glob.glob(os.path.join(SMALL, "txs", "getrawtransaction_*.json")))
        assert_true(len(txfiles) >= 10, "sample transactions present")
        for path in txfiles:
            want = json.load(open(path))
            assert_equal(node.rpc("getrawtransaction", want["txid"], True), want)
            got = node.rpc("getrawtransaction", want["txid"], True, want["blockhash"])
            assert_equal(list(got)[0], "in_active_chain")
            assert_equal(got, dict(want, in_active_chain=True))
            dec = node.rpc("decoderawtransaction", want["hex"])
            for k in dec:
                assert_equal(dec[k], want[k])
            assert_equal(node.rpc("getrawtransaction", want["txid"], 0, want["blockhash"]),
                         want["hex"])
        assert_raises_rpc_error(-5, "No such mempool or blockchain transaction", node.rpc,
                                "getrawtransaction", exp["tip"]["hash"])

        self.log("gettxout of an unspent output and of a spent one")
        tip_block = node.rpc("getblock", exp["tip"]["hash"], 2)
        cb = tip_block["tx"][0]
        out = node.rpc("gettxout", cb["txid"], 0)
        assert_equal(out["value"], cb["vout"][0]["value"])
        assert_equal(out["coinbase"], True)
        assert_equal(out["confirmations"], 1)
        assert_equal(out["scriptPubKey"], cb["vout"][0]["scriptPubKey"])
        spent_in = tip_block["tx"][1]["vin"][0]
        assert_equal(node.rpc("gettxout", spent_in["txid"], spent_in["vout"]), None)

        self.log("stop and restart: the same state")
        node.stop()
        node.start()
        assert_equal(node.rpc("getblockcount"), 1300)
        self.check_utxo(node, exp["gettxoutsetinfo_tip"])
        assert_equal(node.rpc("getindexinfo"), {})
        assert_raises_rpc_error(-5, "Use -txindex or provide a block hash", node.rpc,
                                "getrawtransaction", exp["tip"]["hash"])

        self.log("-reindex-chainstate and -reindex rebuild the same UTXO set")
        for opt in ("-reindex-chainstate", "-reindex"):
            node.stop()
            log_from = os.path.getsize(node.debug_log)
            node.start([opt])
            self.wait_height(node, 1300)
            if opt == "-reindex-chainstate":
                # As Core's, the rebuild runs in the background once RPC is up (warm-up
                # over), so getblockcount and getblockchaininfo show its progress.
                def since_start():
                    with open(node.debug_log, errors="replace") as f:
                        f.seek(log_from)
                        return f.read()
                # The tip can show 1300 a moment before the import thread logs it.
                wait_until(lambda: "stored blocks connected: tip height 1300" in since_start(),
                           what="the rebuild's last line")
                log = since_start()
                done = log.index("init message: Done loading")
                assert_true(done < log.index("stored blocks connected: tip height 1300"),
                            "the chainstate is rebuilt after warm-up, with RPC up")
            else:
                # The tip can reach 1300 before the import thread has taken its last records
                # back; a stop before "Reindexing finished" leaves a reindex to resume (as
                # Core's), which the next step must not start with.
                def finished():
                    with open(node.debug_log, errors="replace") as f:
                        f.seek(log_from)
                        return "Reindexing finished" in f.read()
                wait_until(finished, what="Reindexing finished")
            self.check_utxo(node, exp["gettxoutsetinfo_tip"])
        node.stop()

        self.log("-stopatheight stops the node when start-up itself connects past it")
        node.start(["-reindex-chainstate", "-stopatheight=1000"], wait=False)
        node.wait_exit(timeout=120)
        log = open(node.debug_log).read()
        assert_in("-stopatheight reached: shutting down", log)
        assert_in("tip height 1000\n", log)
        node.start()
        self.wait_height(node, 1300)
        node.stop()
        self.log("-stopatheight at or below the tip loaded stops the node too (Core's blockTip "
                 "at load; a crash in the last flush leaves the tip there)")
        for h in (1300, 1200):
            log_from = os.path.getsize(node.debug_log)
            node.start(["-stopatheight=%d" % h], wait=False)
            assert_equal(node.wait_exit(timeout=60), 0)
            with open(node.debug_log) as f:
                f.seek(log_from)
                assert_in("-stopatheight reached: shutting down", f.read())

        if not os.path.isdir(REORG):
            if os.environ.get("BITNODE_REQUIRE_SHARED") == "1":
                raise AssertionError("%s not found" % REORG)
            self.log("skipping the reorg data set: %s not found" % REORG)
            return
        rexp = json.load(open(os.path.join(REORG, "expected.json")))
        for name in ("blk-reorg.dat", "blk-shuffled.dat"):
            self.log("%s: Core's tip, UTXO hashes and chain tips" % name)
            n = self.nodes[0]
            for d in ("blocks", "chainstate"):
                path = os.path.join(n.net_dir, d)
                if os.path.isdir(path):
                    import shutil
                    shutil.rmtree(path)
            n.start(["-loadblock=" + os.path.join(REORG, name)])
            self.wait_height(n, 165)
            assert_equal(n.rpc("getbestblockhash"), rexp["tip"]["hash"])
            self.check_utxo(n, rexp["gettxoutsetinfo_tip"])
            if name == "blk-reorg.dat":
                assert_equal(n.rpc("getchaintips"), rexp["getchaintips"])
            else:
                n.stop()
                n.start(["-reindex"])
                self.wait_height(n, 165)
                assert_equal(n.rpc("getbestblockhash"), rexp["tip"]["hash"])
                self.check_utxo(n, rexp["gettxoutsetinfo_tip"])
            n.stop()


if __name__ == "__main__":
    ChainImportTest().main()
