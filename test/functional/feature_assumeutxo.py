#!/usr/bin/env python3
"""loadtxoutset (assumeutxo): a UTXO snapshot made by Bitcoin Core, loaded, followed to the
tip at once and validated in the background.

The chain is test/data/regtest-assumeutxo (made by Core with the steps of its own
feature_assumeutxo.py): its block 299 is the one Core's regtest parameters vouch for.
- node A imports it (399 blocks); dumptxoutset "rollback" (the chain's snapshot height) and
  rollback=298 write the same bytes as Core's dumps;
- node B, with only the headers, refuses bad snapshots with Core's errors (a missing base
  header, a block the chain does not vouch for, a file that is not a snapshot or is cut
  short, a snapshot of another network), then loads Core's snapshot at 299: two chainstates,
  gettxoutsetinfo is Core's at 299, the blocks below are not there, NODE_NETWORK is off;
- B (with -txindex) connects to A: the active chain reaches 399 and the background
  chainstate downloads and connects blocks 1..299 (into -txindex too), checks the UTXO hash
  and is dropped; gettxoutsetinfo is Core's at
  399; a restart moves the snapshot's store into place (Core's log line);
- B offers NODE_NETWORK again once validated;
- node C, of another backend's build when one is beside this one, with blocks 1..199 and a
  fork of 50 blocks mined on them (less work than the snapshot), loads the snapshot A wrote
  and answers as B (its background chainstate at the fork's tip), before and after a
  restart; from A, its background chainstate leaves the fork and validates the snapshot.
- -reindex-chainstate drops a snapshot not validated yet (Core's log line).
"""
import json
import os

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_raises_rpc_error,
                       assert_true, builddir, wait_until)

ADDR = "bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5"
FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-assumeutxo")
TIPAGE = "-maxtipage=2000000000"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def without_disk_size(info):
    """gettxoutsetinfo as expected.json keeps it: no disk_size (the store's own), the amount
    as Core prints it."""
    r = {k: v for k, v in info.items() if k != "disk_size"}
    r["total_amount"] = "%.8f" % r["total_amount"]
    return r


class AssumeutxoTest(BitnodeTestFramework):
    num_nodes = 3
    start_nodes_at_setup = False

    def other_build(self):
        """Another backend's build beside ours (CI builds the four in turn), or None."""
        ours = os.path.abspath(builddir())
        root = os.path.dirname(ours)
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if d != ours and os.path.exists(os.path.join(d, "bitnoded")):
                return d
        return None

    def feed_headers(self, src, dst, top):
        for h in range(1, top + 1):
            dst.rpc("submitheader", src.rpc("getblock", src.rpc("getblockhash", h), 0))

    def check_loaded(self, node, core, base_hash, bg_height=0):
        normal, snap = node.rpc("getchainstates")["chainstates"]
        assert_equal(normal["blocks"], bg_height)
        assert_true("snapshot_blockhash" not in normal, "the background one has no snapshot")
        assert_equal(normal["validated"], True)
        assert_equal(snap["blocks"], 299)
        assert_equal(snap["snapshot_blockhash"], base_hash)
        assert_equal(snap["validated"], False)
        info = node.rpc("getblockchaininfo")
        assert_equal(info["blocks"], 299)
        bv = info["backgroundvalidation"]
        assert_equal((bv["snapshotheight"], bv["blocks"]), (299, bg_height))
        assert_equal(without_disk_size(node.rpc("gettxoutsetinfo")),
                     core["gettxoutsetinfo_without_disk_size"]["299"])
        assert_raises_rpc_error(-1, "Block not available (not fully downloaded)", node.rpc,
                                "getblock", base_hash)
        assert_equal(node.rpc("getchaintxstats", 1, base_hash)["txcount"], 334)
        assert_true("NETWORK" not in node.rpc("getnetworkinfo")["localservicesnames"],
                    "a node with a snapshot serves as a limited one")

    def bad_snapshots(self, b, good):
        tmp = self.tmpdir
        assert_raises_rpc_error(-8, "Couldn't open file", b.rpc, "loadtxoutset",
                                os.path.join(tmp, "nonexistent.dat"))
        data = read(good)
        for name, blob, msg in (
                ("magic.dat", b"xxxx" + data[4:], "Invalid UTXO set snapshot magic bytes"),
                ("version.dat", data[:5] + b"\x09\x00" + data[7:],
                 "Version of snapshot 9 does not match any of the supported versions."),
                ("net.dat", data[:7] + bytes.fromhex("f9beb4d9") + data[11:],
                 "The network of the snapshot (main) does not match the network of this node "
                 "(regtest)."),
                ("header.dat", data[:20], "AutoFile::read: end of file")):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(blob)
            assert_raises_rpc_error(-22, "Unable to parse metadata: " + msg, b.rpc,
                                    "loadtxoutset", os.path.join(tmp, name))
        assert_raises_rpc_error(-32603, "The following snapshot heights are available: 110, "
                                "200, 299", b.rpc, "loadtxoutset", os.path.join(FIX, "utxos-298.dat"))
        for name, blob, msg in (
                ("cut.dat", data[:-100], "Bad snapshot format or truncated snapshot after "
                 "deserializing"),
                ("more.dat", data + b"\x00", "Bad snapshot - coins left over after "
                 "deserializing 299 coins"),
                ("flip.dat", data[:-3] + bytes([data[-3] ^ 1]) + data[-2:],
                 "Bad snapshot content hash: expected 106b2c56")):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(blob)
            assert_raises_rpc_error(-32603, "Unable to load UTXO snapshot: Population failed: " +
                                    msg, b.rpc, "loadtxoutset", os.path.join(tmp, name))
        assert_equal(len(b.rpc("getchainstates")["chainstates"]), 1)

    def run_test(self):
        a, b, c = self.nodes
        with open(os.path.join(FIX, "expected.json")) as f:
            core = json.load(f)
        a.start(["-loadblock=" + os.path.join(FIX, "blocks.dat"), TIPAGE])
        wait_until(lambda: a.rpc("getblockcount") == 399, timeout=60, what="imported")
        assert_equal(without_disk_size(a.rpc("gettxoutsetinfo")),
                     core["gettxoutsetinfo_without_disk_size"]["399"])

        self.log("dumptxoutset rollback: Core's bytes at 299 (the chain's height) and at 298")
        r = a.rpc("dumptxoutset", "utxos.dat", "rollback")
        assert_equal({k: r[k] for k in core["dumptxoutset"]["utxos-299.dat"]},
                     core["dumptxoutset"]["utxos-299.dat"])
        assert_true(read(r["path"]) == read(os.path.join(FIX, "utxos-299.dat")), "Core's bytes")
        r = a.rpc("dumptxoutset", path="utxos298.dat", rollback=298)
        assert_true(read(r["path"]) == read(os.path.join(FIX, "utxos-298.dat")), "Core's bytes")
        assert_equal(a.rpc("getblockcount"), 399)
        ours = os.path.join(a.net_dir, "utxos.dat")
        core_dump = os.path.join(FIX, "utxos-299.dat")

        self.log("B refuses what is not a usable snapshot, with Core's errors")
        b.start([TIPAGE, "-txindex"])
        base_hash = core["heights"]["299"]["blockhash"]
        assert_raises_rpc_error(-32603, "The base block header (%s) must appear in the headers "
                                "chain" % base_hash, b.rpc, "loadtxoutset", core_dump)
        self.feed_headers(a, b, 299)
        self.bad_snapshots(b, core_dump)

        self.log("B loads Core's snapshot")
        r = b.rpc("loadtxoutset", core_dump)
        assert_equal((r["coins_loaded"], r["base_height"], r["tip_hash"]), (299, 299, base_hash))
        self.check_loaded(b, core, base_hash)
        assert_raises_rpc_error(-32603, "Can't activate a snapshot-based chainstate more than "
                                "once", b.rpc, "loadtxoutset", core_dump)
        self.log("-reindex-chainstate drops a snapshot not validated yet; it loads again")
        b.stop()
        b.start([TIPAGE, "-txindex", "-reindex-chainstate"])
        wait_until(lambda: len(b.rpc("getchainstates")["chainstates"]) == 1, what="dropped")
        assert_in("[snapshot] deleting snapshot chainstate due to reindexing",
                  open(b.debug_log).read())
        self.feed_headers(a, b, 299)  # as Core's test does after a reindex
        b.rpc("loadtxoutset", core_dump)
        self.check_loaded(b, core, base_hash)

        self.log("B follows A to the tip; the background chainstate validates 1..299")
        b.rpc("addnode", "127.0.0.1:%d" % a.p2p_port, "onetry")
        wait_until(lambda: b.rpc("getblockcount") == 399, timeout=60, what="B at the tip")
        wait_until(lambda: len(b.rpc("getchainstates")["chainstates"]) == 1, timeout=60,
                   what="background validation done")
        assert_in("[snapshot] snapshot beginning at %s has been fully validated" % base_hash,
                  open(b.debug_log).read())
        assert_equal(without_disk_size(b.rpc("gettxoutsetinfo")),
                     core["gettxoutsetinfo_without_disk_size"]["399"])
        assert_equal(b.rpc("getblock", b.rpc("getblockhash", 150))["height"], 150)
        h150 = a.rpc("getblockhash", 150)
        coinbase = a.rpc("getblock", h150)["tx"][0]
        assert_equal(b.rpc("getrawtransaction", coinbase, True)["blockhash"], h150)  # -txindex
        assert_true("backgroundvalidation" not in b.rpc("getblockchaininfo"), "no more")
        b.stop()
        assert_true(os.path.exists(os.path.join(b.net_dir, "chainstate_snapshot")), "still")
        b.start([TIPAGE, "-txindex"])
        assert_in("cleaning up unneeded background chainstate", open(b.debug_log).read())
        assert_true(not os.path.exists(os.path.join(b.net_dir, "chainstate_snapshot")), "moved")
        chainstate, = b.rpc("getchainstates")["chainstates"]
        assert_equal((chainstate["blocks"], chainstate["validated"]), (399, True))
        assert_equal(without_disk_size(b.rpc("gettxoutsetinfo")),
                     core["gettxoutsetinfo_without_disk_size"]["399"])

        wait_until(lambda: "NETWORK" in b.rpc("getnetworkinfo")["localservicesnames"],
                   what="NODE_NETWORK offered again")

        other = self.other_build()
        self.log("C (%s), on a fork of its own with less work, loads the snapshot A wrote" %
                 (os.path.basename(other) if other else "this build: no other beside it"))
        c.build = other
        c.start([TIPAGE])
        for h in range(1, 200):
            c.rpc("submitblock", a.rpc("getblock", a.rpc("getblockhash", h), 0))
        c.rpc("generatetoaddress", 50, ADDR)
        self.feed_headers(a, c, 299)
        c.rpc("loadtxoutset", ours)
        self.check_loaded(c, core, base_hash, bg_height=249)
        c.stop()
        c.start([TIPAGE])
        self.check_loaded(c, core, base_hash, bg_height=249)
        self.log("C leaves its fork in the background and validates the snapshot from A")
        c.rpc("addnode", "127.0.0.1:%d" % a.p2p_port, "onetry")
        wait_until(lambda: len(c.rpc("getchainstates")["chainstates"]) == 1 and
                   c.rpc("getblockcount") == 399, timeout=60, what="C validated")
        assert_equal(without_disk_size(c.rpc("gettxoutsetinfo")),
                     core["gettxoutsetinfo_without_disk_size"]["399"])
        c.stop()


if __name__ == "__main__":
    AssumeutxoTest().main()
