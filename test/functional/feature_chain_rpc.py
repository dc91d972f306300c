#!/usr/bin/env python3
"""Chain RPCs around the tip: waitfornewblock / waitforblock / waitforblockheight (timeouts
and wake-ups on submitblock), verifychain at every level (and a damaged undo file found at
level 2), preciousblock, submitblock's BIP22 answers, getchaintips on a fresh chain,
verificationprogress against the clock and a newer header."""

import glob
import json
import os
import threading
import time

from framework import (BitnodeTestFramework, assert_equal, assert_true, assert_raises_rpc_error,
                       wait_until)

SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")


def block_hex(height):
    return open(os.path.join(SMALL, "blocks", "block_%06d.hex" % height)).read().strip()


class ChainRpcTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        genesis = node.rpc("getblockhash", 0)
        self.log("a fresh chain: genesis only")
        assert_equal(node.rpc("getblockcount"), 0)
        assert_equal(node.rpc("getchaintips"),
                     [{"height": 0, "hash": genesis, "branchlen": 0, "status": "active"}])

        self.log("waits time out with the current tip")
        t0 = time.time()
        assert_equal(node.rpc("waitfornewblock", 300), {"hash": genesis, "height": 0})
        assert_equal(node.rpc("waitforblockheight", 5, 200), {"hash": genesis, "height": 0})
        assert_true(time.time() - t0 >= 0.45, "the waits lasted their timeouts")
        assert_equal(node.rpc("waitforblock", genesis, 100), {"hash": genesis, "height": 0})
        assert_raises_rpc_error(-1, "Negative timeout", node.rpc, "waitfornewblock", -1)

        self.log("waitfornewblock wakes up when a block arrives")
        result = {}

        def waiter():
            result["new"] = node.rpc("waitfornewblock", 20000)

        th = threading.Thread(target=waiter)
        th.start()
        time.sleep(0.5)
        assert_equal(node.rpc("submitblock", block_hex(1)), None)
        th.join(30)
        h1 = node.rpc("getblockhash", 1)
        assert_equal(result["new"], {"hash": h1, "height": 1})
        assert_equal(node.rpc("waitforblock", h1, 0), {"hash": h1, "height": 1})
        assert_equal(node.rpc("waitforblockheight", 1), {"hash": h1, "height": 1})

        self.log("submitblock answers as BIP22")
        assert_equal(node.rpc("submitblock", block_hex(1)), "duplicate")
        assert_equal(node.rpc("submitblock", block_hex(101)), "prev-blk-not-found")
        assert_raises_rpc_error(-22, "Block decode failed", node.rpc, "submitblock", "00")
        bad = bytearray.fromhex(block_hex(1))
        bad[40] ^= 1  # inside the merkle root: the block's own hash changes
        answer = node.rpc("submitblock", bad.hex())
        assert_true(answer in ("high-hash", "bad-txnmrklroot"), answer)

        self.log("import the rest, then verifychain at every level")
        node.stop()
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat")])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="height 1300")
        for level in range(5):
            assert_equal(node.rpc("verifychain", level, 50), True)
        assert_equal(node.rpc("verifychain"), True)
        assert_equal(node.rpc("verifychain", 4, 0), True)
        muhash = node.rpc("gettxoutsetinfo", "muhash")["muhash"]
        # Core clamps the level into 0..4 (5 runs level 4, -1 level 0).
        assert_equal(node.rpc("verifychain", 5), True)
        assert_equal(node.rpc("verifychain", -1, 2), True)
        # verifychain touches nothing.
        assert_equal(node.rpc("gettxoutsetinfo", "muhash")["muhash"], muhash)
        assert_equal(node.rpc("getblockcount"), 1300)
        # Level 1 is Core's CheckBlock (and a witness commitment checked against the bytes):
        # not the contextual rules, which follow the activation heights the node runs with.
        # Core's rpc_blockchain restarts with -testactivationheight=segwit@6 below its
        # witness blocks; bitnode said "unexpected-witness" there.
        node.stop()
        node.start(["-testactivationheight=segwit@2000"])
        assert_equal(node.rpc("verifychain", 4, 0), True)
        node.stop()
        node.start()

        self.log("getblockstats agrees with Core's getblock answers for every sample block")
        for path in sorted(glob.glob(os.path.join(SMALL, "blocks", "getblock_*.json"))):
            blk = json.load(open(path))
            st = node.rpc("getblockstats", blk["height"])
            assert_equal(st, node.rpc("getblockstats", blk["hash"]))
            txs = blk["tx"][1:]
            sat = lambda btc: int(round(btc * 1e8))
            assert_equal(st["txs"], blk["nTx"])
            assert_equal(st["height"], blk["height"])
            assert_equal(st["blockhash"], blk["hash"])
            assert_equal(st["time"], blk["time"])
            assert_equal(st["mediantime"], blk["mediantime"])
            assert_equal(st["ins"], sum(len(t["vin"]) for t in txs))
            assert_equal(st["outs"], sum(len(t["vout"]) for t in blk["tx"]))
            assert_equal(st["totalfee"], sum(sat(t["fee"]) for t in txs))
            assert_equal(st["total_out"], sum(sat(o["value"]) for t in txs for o in t["vout"]))
            assert_equal(st["total_size"], sum(t["size"] for t in txs))
            assert_equal(st["total_weight"], sum(t["weight"] for t in txs))
            assert_equal(st["subsidy"], (50 * 10**8) >> (blk["height"] // 150))
            assert_equal(st["swtxs"], sum(1 for t in txs if any("txinwitness" in i for i in t["vin"])))
            fees = sorted(sat(t["fee"]) for t in txs)
            if fees:
                assert_equal(st["maxfee"], fees[-1])
                assert_equal(st["minfee"], fees[0])
        assert_equal(node.rpc("getblockstats", 1300, ["txs", "height"]),
                     {"txs": node.rpc("getblockstats", 1300)["txs"], "height": 1300})
        assert_raises_rpc_error(-8, "Invalid selected statistic 'nosuch'", node.rpc,
                                "getblockstats", 1300, ["nosuch"])
        assert_raises_rpc_error(-8, "Target block height 1301 after current tip 1300", node.rpc,
                                "getblockstats", 1301)

        self.log("preciousblock on a block with less work changes nothing")
        tip = node.rpc("getbestblockhash")
        assert_equal(node.rpc("preciousblock", node.rpc("getblockhash", 1000)), None)
        assert_equal(node.rpc("getbestblockhash"), tip)
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "preciousblock", "00" * 32)

        self.log("verificationprogress as Core's: below 1 for a tip over two hours old, "
                 "exactly 1 within them, below 1 again once a newer header is known")
        tip_time = node.rpc("getblockchaininfo")["time"]
        node.rpc("setmocktime", tip_time + 7201)
        assert_true(node.rpc("getblockchaininfo")["verificationprogress"] < 1, "old tip")
        node.rpc("setmocktime", tip_time + 7200)
        assert_equal(node.rpc("getblockchaininfo")["verificationprogress"], 1)
        block = node.rpc("generateblock", "raw(55)", [], False)["hex"]
        node.rpc("submitheader", block[:160])
        assert_true(node.rpc("getblockchaininfo")["verificationprogress"] < 1, "a header ahead")
        node.rpc("setmocktime", 0)

        self.log("getchainstates: the one validated chainstate, as getblockchaininfo sees it")
        info, states = node.rpc("getblockchaininfo"), node.rpc("getchainstates")
        assert_equal(states["headers"], info["headers"])
        assert_equal(len(states["chainstates"]), 1)
        c = states["chainstates"][0]
        assert_equal({k: c[k] for k in ("blocks", "bestblockhash", "bits", "target",
                                        "difficulty", "verificationprogress")},
                     {k: info[k] for k in ("blocks", "bestblockhash", "bits", "target",
                                           "difficulty", "verificationprogress")})
        assert_true(c["validated"] and c["coins_db_cache_bytes"] > 0 and
                    c["coins_tip_cache_bytes"] > c["coins_db_cache_bytes"], "caches")

        self.log("a damaged undo file is found by verifychain level 2")
        node.stop()
        rev = os.path.join(node.net_dir, "blocks", "rev00000.dat")
        data = bytearray(open(rev, "rb").read())
        # Damage the last record's payload (the tip's undo data), well inside it.
        end = len(data.rstrip(b"\0"))
        data[end - 40] ^= 0xff
        open(rev, "wb").write(bytes(data))
        # Start-up checks the last 6 blocks at level 3 (Core's -checkblocks, -checklevel).
        node.assert_start_fails([], "Corrupted block database detected.\nPlease restart with "
                                    "-reindex or -reindex-chainstate to recover.")
        node.start(["-checklevel=1"])
        assert_equal(node.rpc("verifychain", 1, 3), True)
        assert_equal(node.rpc("verifychain", 2, 3), False)
        assert_true("found bad undo data at 1300 in rev00000.dat" in open(node.debug_log).read(),
                    "reason logged, with the file")


if __name__ == "__main__":
    ChainRpcTest().main()
