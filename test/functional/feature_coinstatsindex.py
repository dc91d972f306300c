#!/usr/bin/env python3
"""-coinstatsindex: UTXO set statistics after every block, and gettxoutsetinfo from them.

A node with the index imports the repository's regtest-small chain (made by Core):
- getindexinfo reports the index synced at the tip;
- gettxoutsetinfo "muhash" at seven heights is, field for field (block_info included),
  what Bitcoin Core v31.99 with -coinstatsindex answered for this chain, and at every 100th
  height its muhash, txouts, bogosize, amounts are Core's; the block_info totals balance;
- five heights agree with the set computed from the coins themselves: a second node without
  the index rolls back to each height (invalidateblock) and computes gettxoutsetinfo there;
- Core's errors for hash_or_height; use_index=false computes from the coins (transactions
  and disk_size back, no block_info);
- a reorg: the index reverts to the fork point and follows the new chain, a block that left
  the chain keeps its statistics; a restart goes on from where it was; a kill while it
  catches up leaves a store the next start continues; -reindex rebuilds it.
"""
import json
import os

from blocktools import Key, hash160, segwit_address
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, wait_until)

SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"
SAT = 100_000_000


def sat(v):
    return round(v * SAT)


class CoinStatsIndexTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def synced(self, node, height):
        info = node.rpc("getindexinfo").get("coinstatsindex")
        return info == {"synced": True, "best_block_height": height}

    def run_test(self):
        node, plain = self.nodes
        with open(os.path.join(SMALL, "expected.json")) as f:
            core = json.load(f)
        blk = "-loadblock=" + os.path.join(SMALL, "blk00000.dat")
        node.start([blk, TIPAGE, "-coinstatsindex"])
        plain.start([blk, TIPAGE])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="imported")
        wait_until(lambda: self.synced(node, 1300), timeout=120, what="index synced")
        wait_until(lambda: plain.rpc("getblockcount") == 1300, timeout=120, what="plain imported")

        self.log("Core's answers with -coinstatsindex, field for field")
        for h, want in core["gettxoutsetinfo_at_height"].items():
            assert_equal(node.rpc("gettxoutsetinfo", "muhash", int(h)), want["muhash"])
        assert_equal(node.rpc("gettxoutsetinfo", "muhash"), core["gettxoutsetinfo_tip"]["muhash"])
        for h, want in core["gettxoutsetinfo_muhash_every_100"].items():
            got = node.rpc("gettxoutsetinfo", "muhash", want["bestblock"])
            assert_equal({k: got[k] for k in want}, want)
        none = node.rpc("gettxoutsetinfo", "none", 700)
        assert_true("muhash" not in none and "transactions" not in none, "no hash, no count")

        self.log("the block_info totals balance at every height")
        unspendable = 0
        for h in range(0, 1301, 13):
            r = node.rpc("gettxoutsetinfo", "none", h)
            bi = r["block_info"]
            subsidy = (50 * SAT) >> (h // 150)
            assert_equal(sat(bi["prevout_spent"]) + subsidy,
                         sat(bi["new_outputs_ex_coinbase"]) + sat(bi["coinbase"]) +
                         sat(bi["unspendable"]))
            assert_equal(sat(bi["unspendable"]), sum(sat(v) for v in bi["unspendables"].values()))
            assert_true(sat(r["total_unspendable_amount"]) >= unspendable, "never shrinks")
            unspendable = sat(r["total_unspendable_amount"])
        genesis = node.rpc("gettxoutsetinfo", "none", 0)["block_info"]
        assert_equal(genesis["unspendables"]["genesis_block"], 50)

        self.log("five heights against the coins themselves, rolled back on a node without it")
        for h in (1299, 1100, 640, 301, 120):
            plain.rpc("invalidateblock", plain.rpc("getblockhash", h + 1))
            want = plain.rpc("gettxoutsetinfo", "muhash")
            got = node.rpc("gettxoutsetinfo", "muhash", h)
            assert_equal({k: got[k] for k in ("height", "bestblock", "txouts", "bogosize",
                                              "muhash", "total_amount")},
                         {k: want[k] for k in ("height", "bestblock", "txouts", "bogosize",
                                               "muhash", "total_amount")})
        plain.rpc("reconsiderblock", node.rpc("getblockhash", 121))
        wait_until(lambda: plain.rpc("getblockcount") == 1300, timeout=60, what="plain back")

        self.log("Core's errors; use_index=false computes from the coins")
        assert_raises_rpc_error(-8, "Querying specific block heights requires coinstatsindex",
                                plain.rpc, "gettxoutsetinfo", "muhash", 10)
        assert_raises_rpc_error(-8, "hash_serialized_3 hash type cannot be queried for a "
                                "specific block", node.rpc, "gettxoutsetinfo",
                                "hash_serialized_3", 10)
        assert_raises_rpc_error(-8, "Cannot set use_index to false when querying for a "
                                "specific block", node.rpc, "gettxoutsetinfo", "muhash", 10, False)
        assert_raises_rpc_error(-8, "Target block height 1301 after current tip 1300", node.rpc,
                                "gettxoutsetinfo", "muhash", 1301)
        assert_raises_rpc_error(-8, "Target block height -1 is negative", node.rpc,
                                "gettxoutsetinfo", "muhash", -1)
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "gettxoutsetinfo", "muhash",
                                "00" * 32)
        computed = node.rpc("gettxoutsetinfo", "muhash", None, False)
        assert_equal(computed["muhash"], core["gettxoutsetinfo_tip"]["muhash"]["muhash"])
        assert_true("block_info" not in computed and "transactions" in computed, "computed")
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"],
                     core["gettxoutsetinfo_tip"]["hash_serialized_3"]["hash_serialized_3"])

        self.log("a reorg: reverted to the fork point, the new chain followed")
        stale = node.rpc("getblockhash", 1290)
        stale_stats = node.rpc("gettxoutsetinfo", "muhash", stale)
        node.rpc("invalidateblock", stale)
        addr = segwit_address("bcrt", 0, hash160(Key(0x1234).pubkey))
        node.rpc("generatetoaddress", 15, addr)
        wait_until(lambda: self.synced(node, 1304), timeout=60, what="index on the new chain")
        tip = node.rpc("gettxoutsetinfo", "muhash")
        assert_equal(tip["muhash"], node.rpc("gettxoutsetinfo", "muhash", None, False)["muhash"])
        assert_equal(node.rpc("gettxoutsetinfo", "muhash", stale), stale_stats)
        assert_equal(sat(tip["block_info"]["coinbase"]), (50 * SAT) >> (1304 // 150))  # no fees

        self.log("a restart goes on from where it was")
        node.stop()
        node.start([TIPAGE, "-coinstatsindex"])
        wait_until(lambda: self.synced(node, 1304), timeout=60, what="index synced again")
        assert_equal(node.rpc("gettxoutsetinfo", "muhash"), tip)

        self.log("killed while it catches up, the next start goes on")
        node.stop()
        node.start([TIPAGE, "-coinstatsindex", "-reindex"])
        wait_until(lambda: node.rpc("getblockcount") == 1304, timeout=120, what="reindexed")
        wait_until(lambda: node.rpc("getindexinfo")["coinstatsindex"]["best_block_height"] > 0
                   or self.synced(node, 1304), timeout=60, what="index started")
        node.kill()
        node.start([TIPAGE, "-coinstatsindex"])
        wait_until(lambda: self.synced(node, 1304), timeout=120, what="index after the kill")
        assert_equal(node.rpc("gettxoutsetinfo", "muhash"), tip)
        for h, want in core["gettxoutsetinfo_at_height"].items():
            if int(h) < 1290:
                assert_equal(node.rpc("gettxoutsetinfo", "muhash", int(h)), want["muhash"])


if __name__ == "__main__":
    CoinStatsIndexTest().main()
