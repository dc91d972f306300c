#!/usr/bin/env python3
"""Pruning (-prune, -fastprune, pruneblockchain) as Bitcoin Core prunes.

- Core's start-up errors: a negative -prune, one below 550 MiB, -prune with -txindex and
  with -reindex-chainstate.
- Manual pruning (-prune=1 -fastprune) of the repository's regtest-small chain (made by
  Core): getblockchaininfo's pruned, pruneheight and automatic_pruning (no
  prune_target_size), the service bits (NODE_NETWORK_LIMITED without NODE_NETWORK),
  pruneblockchain's errors (not in prune mode, negative, above the tip) and its answer (the
  height of the last block pruned); whole blk/rev files deleted, oldest first; a pruned
  block answers Core's "Block not available (pruned data)"; a prune near the tip keeps the
  last 288 blocks; the UTXO set still hashes to Core's answer; a restart keeps it pruned,
  one without -prune is refused with Core's message, and files whose pruning a crash cut
  short (recorded as pruned, still on disk) are deleted at start-up; -reindex of a pruned
  node deletes what it cannot read again, as Core does.
- The block filter index with pruning: filters of pruned blocks are still served; an index
  switched off while the chain grew and was pruned past its best block refuses to start
  with Core's message.
- Automatic pruning (-prune=550): a generated chain of 672 MiB (1,000 small blocks, then
  1,100 with a large unspendable coinbase output) is imported; the blocks directory, measured with du
  while the import runs, never passes the target; the UTXO set reaches the hash this test
  computes on its own; the node is killed (SIGKILL) right after a prune, restarts on a
  consistent state and finishes the import to the same hash.
"""
import hashlib
import os
import shutil
import struct
import time

from blocktools import (Block, NULL_OUTPOINT, REGTEST_GENESIS, REGTEST_GENESIS_TIME,
                        REGTEST_MAGIC, SCRIPT_TRUE, TxIn, TxOut, block_subsidy,
                        coinbase_script_sig, ser_compact_size, sha256d)
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, wait_until)

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "..", "data", "regtest-small")
NODE_NETWORK = 1
NODE_NETWORK_LIMITED = 1 << 10
MIB = 1 << 20


def blocks_files(node):
    d = os.path.join(node.net_dir, "blocks")
    return sorted(f for f in os.listdir(d) if f.endswith(".dat"))


def du_bytes(path):
    """What du counts of the block and undo files in path (the larger of each file's size and
    its allocated blocks): what the target covers, as Core's. The block index store beside
    them (blocks/index/) is not counted: its size is the backend's (RocksDB preallocates its
    log), and Core's target leaves it out too."""
    total = 0
    for f in os.listdir(path):
        if not (f.startswith(("blk", "rev")) and f.endswith(".dat")):
            continue
        try:
            st = os.stat(os.path.join(path, f))
        except FileNotFoundError:
            continue  # pruned while listing
        total += max(st.st_size, st.st_blocks * 512)
    return total


def utxo_hash(coins):
    """hash_serialized_3 of coins {(txid, n): (height, coinbase, value, spk)} (Core's
    TxOutSer in the store's order: txid bytes, then n)."""
    h = hashlib.sha256()
    for (txid, n) in sorted(coins):
        height, cb, value, spk = coins[(txid, n)]
        h.update(txid + struct.pack("<II", n, height * 2 + cb) + struct.pack("<q", value) +
                 bytes([len(spk)]) + spk)
    return hashlib.sha256(h.digest()).digest()[::-1].hex()


def big_chain(path, nsmall, nbig, filler):
    """nsmall blocks of one coinbase paying the subsidy to OP_TRUE, then nbig whose coinbase
    also has an unspendable output of filler bytes (kept out of the UTXO set), written as a
    -loadblock file. Returns (tip hash, expected hash_serialized_3)."""
    prev = bytes.fromhex(REGTEST_GENESIS)[::-1]
    coins = {}
    junk = b"\x6a" + b"\x00" * filler
    big_out = struct.pack("<q", 0) + ser_compact_size(len(junk)) + junk
    with open(path, "wb") as f:
        for h in range(1, nsmall + nbig + 1):
            out0 = TxOut(block_subsidy(h), SCRIPT_TRUE).serialize()
            vin = TxIn(NULL_OUTPOINT, coinbase_script_sig(h), 0xFFFFFFFF).serialize()
            outs = (b"\x02" + out0 + big_out) if h > nsmall else (b"\x01" + out0)
            tx = struct.pack("<i", 1) + b"\x01" + vin + outs + struct.pack("<I", 0)
            txid = sha256d(tx)
            b = Block(prev, [], REGTEST_GENESIS_TIME + h)
            b.merkle = txid
            target = b.target()
            while int.from_bytes(b.sha, "little") > target:
                b.nonce += 1
            raw = b.header() + b"\x01" + tx
            f.write(REGTEST_MAGIC + struct.pack("<I", len(raw)) + raw)
            coins[(txid, 0)] = (h, 1, block_subsidy(h), SCRIPT_TRUE)
            prev = b.sha
    return prev[::-1].hex(), utxo_hash(coins)


class PruningTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def run_test(self):
        self.test_option_errors(self.nodes[0])
        self.test_manual(self.nodes[0])
        self.test_index(self.nodes[0])
        self.test_automatic(self.nodes[1])

    def test_option_errors(self, node):
        self.log("Core's start-up errors for -prune")
        node.assert_start_fails(["-prune=-1"], "Prune cannot be configured with a negative value.")
        node.assert_start_fails(["-prune=549"], "Prune configured below the minimum of 550 MiB."
                                "  Please use a higher number.")
        node.assert_start_fails(["-prune=550", "-txindex"],
                                "Prune mode is incompatible with -txindex.")
        node.assert_start_fails(["-prune=1", "-reindex-chainstate"],
                                "Prune mode is incompatible with -reindex-chainstate. Use full "
                                "-reindex instead.")

    def test_manual(self, node):
        self.log("manual pruning of regtest-small (-prune=1 -fastprune)")
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), "-maxtipage=2000000000",
                    "-prune=1", "-fastprune", "-debug=blockstorage"])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="imported")
        info = node.rpc("getblockchaininfo")
        assert_equal(info["pruned"], True)
        assert_equal(info["pruneheight"], 0)
        assert_equal(info["automatic_pruning"], False)
        assert_true("prune_target_size" not in info, "no target with -prune=1")
        services = int(node.rpc("getnetworkinfo")["localservices"], 16)
        assert_equal(services & (NODE_NETWORK | NODE_NETWORK_LIMITED), NODE_NETWORK_LIMITED)
        files_before = blocks_files(node)
        assert_true(len(files_before) > 40, "-fastprune's 64 KiB files: %d" % len(files_before))

        assert_raises_rpc_error(-8, "Negative block height.", node.rpc, "pruneblockchain", -1)
        assert_raises_rpc_error(-8, "Blockchain is shorter than the attempted prune height.",
                                node.rpc, "pruneblockchain", 1301)
        h100 = node.rpc("getblockhash", 100)
        size_before = info["size_on_disk"]
        last = node.rpc("pruneblockchain", 500)
        assert_true(300 < last <= 500, "the last block pruned: %d" % last)
        info = node.rpc("getblockchaininfo")
        assert_equal(info["pruneheight"], last + 1)
        assert_true(info["size_on_disk"] < size_before, "size_on_disk went down")
        assert_true("blk00000.dat" not in blocks_files(node) and
                    "rev00000.dat" not in blocks_files(node), "the oldest files went first")
        assert_raises_rpc_error(-1, "Block not available (pruned data)", node.rpc, "getblock",
                                h100)
        assert_raises_rpc_error(-1, "Block not available (pruned data)", node.rpc, "getblock",
                                h100, 0)
        node.rpc("getblock", node.rpc("getblockhash", last + 1))
        node.rpc("getblock", node.rpc("getblockhash", 1300), 2)
        # A pruned block of the active chain submitted again is stored, nothing connects:
        # Core's "inconclusive", and the block reads again.
        h101 = node.rpc("getblockhash", 101)
        raw101 = open(os.path.join(SMALL, "blocks", "block_000101.hex")).read().strip()
        assert_raises_rpc_error(-1, "Block not available (pruned data)", node.rpc, "getblock",
                                h101, 0)
        assert_equal(node.rpc("submitblock", raw101), "inconclusive")
        assert_equal(node.rpc("getblock", h101, 0), raw101)

        self.log("a prune near the tip keeps the last 288 blocks")
        last = node.rpc("pruneblockchain", 1300)
        assert_true(last <= 1300 - 288, "kept 288: %d" % last)
        node.rpc("getblock", node.rpc("getblockhash", 1300 - 288 + 1))
        expected = self.expected_small()
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], expected)
        files_after = blocks_files(node)

        self.log("a restart keeps it pruned; without -prune it is refused, as Core")
        node.stop()
        node.assert_start_fails([], "You need to rebuild the database using -reindex to go back "
                                "to unpruned mode.  This will redownload the entire "
                                "blockchain.")
        # A pruning cut short by a crash: the index says pruned, the files are still there.
        first_kept = [f for f in files_after if f.startswith("blk")][0]
        stale = os.path.join(node.net_dir, "blocks", "blk00000.dat")
        with open(stale, "wb") as f:
            f.write(b"\x00" * 100)
        node.start(["-prune=1", "-fastprune", "-maxtipage=2000000000"])
        assert_true(not os.path.exists(stale), "start-up deleted the pruned file left behind")
        assert_equal(node.rpc("getblockcount"), 1300)
        # A pruned genesis is not stored again (Core looks only for its entry).
        assert_raises_rpc_error(-1, "Block not available (pruned data)", node.rpc, "getblock",
                                node.rpc("getblockhash", 0))
        assert_equal(node.rpc("getblockchaininfo")["pruneheight"], last + 1)
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], expected)
        assert_equal(blocks_files(node)[0], first_kept)

        self.log("-reindex of a pruned node deletes what it cannot read again (Core)")
        node.stop()
        node.start(["-prune=1", "-fastprune", "-reindex", "-maxtipage=2000000000"])
        wait_until(lambda: "Reindexing finished" in open(node.debug_log).read(), timeout=60,
                   what="reindex done")
        log = open(node.debug_log).read()
        assert_true("Removing unusable blk?????.dat and rev?????.dat files for -reindex with "
                    "-prune" in log, "Core's log line")
        assert_equal([f for f in blocks_files(node) if f.startswith(("blk", "rev"))
                      and f != "blk00000.dat" and f != "rev00000.dat"], [])
        assert_equal(node.rpc("getblockcount"), 0)  # the blocks come from peers now
        node.stop()

    def test_index(self, node):
        self.log("the block filter index on a pruned node: its filters stay; an index left "
                 "behind the pruned blocks refuses to start, as Core's")
        shutil.rmtree(node.net_dir)
        args = ["-prune=1", "-fastprune", "-maxtipage=2000000000"]
        node.start(args + ["-blockfilterindex", "-loadblock=" + os.path.join(SMALL, "blk00000.dat")])
        wait_until(lambda: node.rpc("getindexinfo").get("basic block filter index", {})
                   .get("best_block_height") == 1300, timeout=120, what="index synced")
        h100 = node.rpc("getblockhash", 100)
        filt = node.rpc("getblockfilter", h100)
        last = node.rpc("pruneblockchain", 1000)
        assert_true(last > 100, "pruned past 100: %d" % last)
        assert_raises_rpc_error(-1, "Block not available (pruned data)", node.rpc, "getblock",
                                h100)
        assert_equal(node.rpc("getblockfilter", h100), filt)
        node.stop()
        node.start(args)  # the index off while the chain grows and is pruned past it
        addr = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
        for _ in range(8):
            node.rpc("generatetoaddress", 100, addr)
        tip = node.rpc("getblockcount")
        last = node.rpc("pruneblockchain", tip)
        assert_true(last > 1300, "pruned past the index's best block: %d" % last)
        node.stop()
        node.assert_start_fails(args + ["-blockfilterindex"],
                                "basic block filter index best block of the index goes beyond "
                                "pruned data (including undo data). Please disable the index "
                                "or reindex (which will download the whole blockchain again)")

    def expected_small(self):
        import json
        with open(os.path.join(SMALL, "expected.json")) as f:
            return json.load(f)["gettxoutsetinfo_tip"]["hash_serialized_3"]["hash_serialized_3"]

    def test_automatic(self, node):
        self.log("automatic pruning (-prune=550) of a generated 672 MiB chain")
        path = os.path.join(self.tmpdir, "big.dat")
        # Nothing is pruned up to regtest's height 1000 (Core's PruneAfterHeight): small
        # blocks to there, then 1,100 of 640 kB.
        tip, expected = big_chain(path, 1000, 1100, 640000)
        blocks_dir = os.path.join(node.net_dir, "blocks")
        args = ["-prune=550", "-debug=blockstorage", "-debug=prune"]
        node.start(args + ["-loadblock=" + path])
        assert_equal(node.rpc("getblockchaininfo")["prune_target_size"], 550 * MIB)
        peak = 0

        def pruned_once():
            nonlocal peak
            if os.path.isdir(blocks_dir):
                peak = max(peak, du_bytes(blocks_dir))
            return "UnlinkPrunedFiles deleted" in open(node.debug_log).read()
        wait_until(pruned_once, timeout=300, what="the first prune")
        height = node.rpc("getblockcount")
        self.log("killed (SIGKILL) at height %d, right after a prune" % height)
        node.kill()
        node.start(args + ["-loadblock=" + path])
        info = node.rpc("getblockchaininfo")
        assert_true(info["pruneheight"] <= info["blocks"] - 288, "consistent after the kill")

        def done():
            nonlocal peak
            peak = max(peak, du_bytes(blocks_dir))
            return node.rpc("getblockcount") == 2100
        wait_until(done, timeout=600, what="imported")
        self.log("peak of the blk/rev files during the import: %.1f MiB" % (peak / MIB))
        assert_true(peak <= 550 * MIB, "the blk/rev files stayed under the target: %d" % peak)
        assert_equal(node.rpc("getbestblockhash"), tip)
        info = node.rpc("getblockchaininfo")
        assert_true(info["pruneheight"] > 200, "pruned: %d" % info["pruneheight"])
        assert_true(info["size_on_disk"] <= 550 * MIB, "size_on_disk %d" % info["size_on_disk"])
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], expected)
        node.stop()


if __name__ == "__main__":
    PruningTest().main()
