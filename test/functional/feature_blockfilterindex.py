#!/usr/bin/env python3
"""-blockfilterindex: BIP158 basic filters kept by a thread of their own, and getblockfilter.

A node with the index imports the repository's regtest-small chain (made by Core):
- getindexinfo reports the index synced at the tip;
- for every block, the filter getblockfilter gives is the one this test computes itself
  from the block and the scripts its inputs spend (getblock verbosity 3), with its own
  SipHash-2-4 and Golomb-Rice coder, and the headers chain as BIP157 says; the tip's header
  is the one Bitcoin Core v31.99 gives for this chain;
- Core's errors: unknown filter type, unknown block, a malformed hash, and the index not
  enabled on a node without it; -blockfilterindex=foo stops start-up with Core's words;
- a restart goes on from where it was; after invalidateblock and new blocks the index
  follows the new chain from the fork point (the header chain goes on from the fork's), and
  the block that left the chain keeps its filter; -reindex rebuilds it.
"""
import hashlib
import os

from blocktools import Key, hash160, segwit_address
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, wait_until)

SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"
# getblockfilter's header for regtest-small's tip (height 1300), from Bitcoin Core v31.99.
CORE_TIP_HEADER = "24426524004cd555e3e9c70fd60af78ecdee774c7d97bcb97026b5c02f09bb1e"
P, M = 19, 784931
MASK = (1 << 64) - 1


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def siphash24(k0, k1, data):
    v0, v1 = k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d
    v2, v3 = k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573

    def rounds(n):
        nonlocal v0, v1, v2, v3
        for _ in range(n):
            v0 = (v0 + v1) & MASK
            v1 = rotl(v1, 13) ^ v0
            v0 = rotl(v0, 32)
            v2 = (v2 + v3) & MASK
            v3 = rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & MASK
            v3 = rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & MASK
            v1 = rotl(v1, 17) ^ v2
            v2 = rotl(v2, 32)

    tail = len(data) % 8
    for i in range(0, len(data) - tail, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v3 ^= m
        rounds(2)
        v0 ^= m
    m = (len(data) & 0xff) << 56 | int.from_bytes(data[len(data) - tail:] + b"", "little")
    v3 ^= m
    rounds(2)
    v0 ^= m
    v2 ^= 0xff
    rounds(4)
    return v0 ^ v1 ^ v2 ^ v3


def compact_size(n):
    if n < 253:
        return bytes([n])
    if n <= 0xffff:
        return b"\xfd" + n.to_bytes(2, "little")
    return b"\xfe" + n.to_bytes(4, "little")


def basic_filter(block_hash_hex, elements):
    """BIP158's basic filter of a set of scripts, keyed by the block hash."""
    key = bytes.fromhex(block_hash_hex)[::-1][:16]
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:], "little")
    n = len(elements)
    f = n * M
    values = sorted((siphash24(k0, k1, e) * f) >> 64 for e in elements)
    bits = []
    last = 0
    for v in values:
        delta = v - last
        last = v
        bits += [1] * (delta >> P) + [0]
        bits += [(delta >> i) & 1 for i in range(P - 1, -1, -1)]
    bits += [0] * (-len(bits) % 8)
    out = bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
    return compact_size(n) + out


def block_elements(block):
    elements = set()
    for tx in block["tx"]:
        for out in tx["vout"]:
            spk = bytes.fromhex(out["scriptPubKey"]["hex"])
            if spk and spk[0] != 0x6a:
                elements.add(spk)
        for vin in tx["vin"]:
            if "prevout" in vin:
                spk = bytes.fromhex(vin["prevout"]["scriptPubKey"]["hex"])
                if spk:
                    elements.add(spk)
    return elements


def dsha(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def next_header(filter_hex, prev_header_hex):
    h = dsha(dsha(bytes.fromhex(filter_hex)) + bytes.fromhex(prev_header_hex)[::-1])
    return h[::-1].hex()


class BlockFilterIndexTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def synced(self, node, height):
        info = node.rpc("getindexinfo").get("basic block filter index")
        return info == {"synced": True, "best_block_height": height}

    def run_test(self):
        node, plain = self.nodes
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), TIPAGE,
                    "-blockfilterindex"])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="imported")
        wait_until(lambda: self.synced(node, 1300), timeout=120, what="index synced")

        self.log("every block's filter is BIP158's, computed here; the headers chain")
        header = "00" * 32
        elements = []
        for height in range(0, 1301):
            h = node.rpc("getblockhash", height)
            got = node.rpc("getblockfilter", h)
            block = node.rpc("getblock", h, 3)
            elements.append((h, block_elements(block)))
            assert_equal(got["filter"], basic_filter(h, elements[-1][1]).hex())
            header = next_header(got["filter"], header)
            assert_equal(got["header"], header)
        assert_equal(header, CORE_TIP_HEADER)
        assert_equal(node.rpc("getblockfilter", h, "basic"), got)

        self.log("scanblocks: the blocks that hold or spend a script")
        spk = next(iter(sorted(elements[300][1] - elements[0][1])))
        want = [h for h, e in elements if spk in e]
        scan = "raw(%s)" % spk.hex()
        r = node.rpc("scanblocks", "start", [scan], 0, None, "basic",
                     {"filter_false_positives": True})
        assert_equal(r, {"from_height": 0, "to_height": 1300, "relevant_blocks": want,
                         "completed": True})
        r = node.rpc("scanblocks", "start", [scan])  # false positives at 1/784931 at most
        assert_true(set(want) <= set(r["relevant_blocks"]), "every holder found")
        r = node.rpc("scanblocks", "start", [scan], 301, 1200)
        heights = {h: i for i, (h, _) in enumerate(elements)}
        assert_equal(r["relevant_blocks"], [h for h in want if 301 <= heights[h] <= 1200])
        assert_equal((r["from_height"], r["to_height"]), (301, 1200))
        assert_raises_rpc_error(-1, "Invalid start_height", node.rpc, "scanblocks", "start",
                                [scan], 2000)
        assert_raises_rpc_error(-1, "Invalid stop_height", node.rpc, "scanblocks", "start",
                                [scan], 500, 100)
        assert_raises_rpc_error(-1, "scanobjects argument is required for the start action",
                                node.rpc, "scanblocks", "start")
        assert_raises_rpc_error(-5, "Unknown filtertype", node.rpc, "scanblocks", "start",
                                [scan], 0, 10, "extended")
        assert_raises_rpc_error(-8, "Invalid action 'go'", node.rpc, "scanblocks", "go")
        assert_equal(node.rpc("scanblocks", "status"), None)
        assert_equal(node.rpc("scanblocks", "abort"), False)

        self.log("Core's errors")
        assert_raises_rpc_error(-5, "Unknown filtertype", node.rpc, "getblockfilter", h, "extended")
        assert_raises_rpc_error(-5, "Block not found", node.rpc, "getblockfilter", "00" * 32)
        assert_raises_rpc_error(-8, "blockhash must be of length 64", node.rpc, "getblockfilter",
                                "00")
        plain.start([TIPAGE])
        assert_raises_rpc_error(-1, "Index is not enabled for filtertype basic", plain.rpc,
                                "getblockfilter", plain.rpc("getbestblockhash"))
        assert_raises_rpc_error(-1, "Index is not enabled for filtertype basic", plain.rpc,
                                "scanblocks", "start", ["raw(51)"])
        assert_equal(plain.rpc("getindexinfo"), {})
        plain.stop()
        plain.assert_start_fails(["-blockfilterindex=foo"],
                                 "Unknown -blockfilterindex value foo.")

        self.log("a restart goes on from where it was")
        node.stop()
        node.start([TIPAGE, "-blockfilterindex"])
        wait_until(lambda: self.synced(node, 1300), timeout=60, what="index synced again")
        assert_equal(node.rpc("getblockfilter", h), got)
        assert_equal(node.rpc("getindexinfo", "basic block filter index"),
                     {"basic block filter index": {"synced": True, "best_block_height": 1300}})
        assert_equal(node.rpc("getindexinfo", "txindex"), {})

        self.log("a reorg: the index follows the new chain from the fork point")
        stale = node.rpc("getblockhash", 1250)
        stale_filter = node.rpc("getblockfilter", stale)
        fork_header = node.rpc("getblockfilter", node.rpc("getblockhash", 1249))["header"]
        node.rpc("invalidateblock", stale)
        addr = segwit_address("bcrt", 0, hash160(Key(0x1234).pubkey))
        new = node.rpc("generatetoaddress", 60, addr)
        assert_equal(node.rpc("getblockcount"), 1309)
        wait_until(lambda: self.synced(node, 1309), timeout=60, what="index on the new chain")
        header = fork_header
        for h in new:
            got = node.rpc("getblockfilter", h)
            block = node.rpc("getblock", h, 3)
            assert_equal(got["filter"], basic_filter(h, block_elements(block)).hex())
            header = next_header(got["filter"], header)
            assert_equal(got["header"], header)
        assert_equal(node.rpc("getblockfilter", stale), stale_filter)

        self.log("blocks connected and disconnected at once keep filters too")
        brief = node.rpc("generatetoaddress", 5, addr)
        node.rpc("invalidateblock", brief[0])
        other = segwit_address("bcrt", 0, hash160(Key(0x5678).pubkey))  # not the same blocks
        new += node.rpc("generatetoaddress", 6, other)
        assert_equal(node.rpc("getblockcount"), 1315)
        wait_until(lambda: self.synced(node, 1315), timeout=60, what="index on the longer chain")
        header = node.rpc("getblockfilter", node.rpc("getblockhash", 1309))["header"]
        for h in brief:
            got = node.rpc("getblockfilter", h)
            block = node.rpc("getblock", h, 3)
            assert_equal(got["filter"], basic_filter(h, block_elements(block)).hex())
            header = next_header(got["filter"], header)
            assert_equal(got["header"], header)

        self.log("blocks that leave the chain before the index reached their parent keep filters")
        # The index waits for a still tip (a quarter second) before each block: these are
        # mined and replaced before it starts on them (Core indexes every block connected).
        ahead = node.rpc("generatetoaddress", 5, addr)
        node.rpc("invalidateblock", ahead[2])
        new += node.rpc("generatetoaddress", 4, other)
        assert_equal(node.rpc("getblockcount"), 1321)
        node.rpc("syncwithvalidationinterfacequeue")  # the indexes have every block (Core's)
        assert_equal(node.rpc("getindexinfo")["basic block filter index"],
                     {"synced": True, "best_block_height": 1321})
        header = node.rpc("getblockfilter", ahead[1])["header"]
        for h in ahead[2:]:
            got = node.rpc("getblockfilter", h)
            block = node.rpc("getblock", h, 3)
            assert_equal(got["filter"], basic_filter(h, block_elements(block)).hex())
            header = next_header(got["filter"], header)
            assert_equal(got["header"], header)

        self.log("-reindex rebuilds it")
        before = node.rpc("getblockfilter", new[-1])
        node.stop()
        node.start([TIPAGE, "-blockfilterindex", "-reindex"])
        wait_until(lambda: node.rpc("getblockcount") == 1321, timeout=120, what="reindexed")
        wait_until(lambda: self.synced(node, 1321), timeout=120, what="index rebuilt")
        assert_equal(node.rpc("getblockfilter", new[-1]), before)


if __name__ == "__main__":
    BlockFilterIndexTest().main()
