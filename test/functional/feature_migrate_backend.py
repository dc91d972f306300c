#!/usr/bin/env python3
"""bitnode-util dump-chainstate / load-chainstate: a datadir moved to another backend.

A node with -txindex and -coinstatsindex imports the repository's regtest-small chain and is
stopped; its stores are dumped and loaded into a new datadir beside copies of its blk/rev
files:
- the new node answers gettxoutsetinfo (both hashes), getblockchaininfo, getindexinfo and
  getrawtransaction as the old one did, and goes on: a new block connects;
- a dump of the loaded datadir is byte for byte the first (records in key order);
- with every other backend's build found beside this one (CI builds the four in turn, so the
  later runs find the earlier builds): that build loads the dump, its node answers the
  same, and its dump is byte for byte the same again, loaded back here;
- refusals: a datadir that holds a chainstate, a dump of another chain, a damaged or
  truncated dump (its load stops, bitnoded then refuses the datadir, and a new load
  finishes), a block file of another size.
"""
import os
import subprocess

from blocktools import Key, hash160, segwit_address
from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, builddir,
                       wait_until)

SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
TIPAGE = "-maxtipage=2000000000"
BACKENDS = ("leveldb", "rocksdb", "lmdb", "bdb")


class MigrateBackendTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def util(self, build, *args, ok=True):
        r = subprocess.run([os.path.join(build, "bitnode-util")] + list(args),
                           capture_output=True, text=True, timeout=300)
        if ok and r.returncode != 0:
            raise AssertionError("bitnode-util %s failed: %s" % (args, r.stderr))
        if not ok:
            assert_true(r.returncode != 0, "bitnode-util %s should fail" % (args,))
        return r

    def answers(self, node):
        info = node.rpc("getblockchaininfo")
        return {
            "hash3": node.rpc("gettxoutsetinfo")["hash_serialized_3"],
            "muhash": node.rpc("gettxoutsetinfo", "muhash", None, False)["muhash"],
            "chain": {k: info[k] for k in ("blocks", "headers", "bestblockhash", "chainwork",
                                           "size_on_disk", "mediantime")},
            "stats": node.rpc("gettxoutsetinfo", "muhash", 700),
            "tx": node.rpc("getrawtransaction", self.txid, 1)["blockhash"],
        }

    def synced(self, node):
        info = node.rpc("getindexinfo")
        return len(info) == 2 and all(v["synced"] for v in info.values())

    def check_node(self, node, build, want):
        node.build = build
        node.start([TIPAGE, "-txindex", "-coinstatsindex"])
        wait_until(lambda: self.synced(node), timeout=60, what="indexes synced")
        assert_equal(self.answers(node), want)

    def run_test(self):
        old, new = self.nodes
        ours = builddir()
        old.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), TIPAGE, "-txindex",
                   "-coinstatsindex"])
        wait_until(lambda: old.rpc("getblockcount") == 1300, timeout=120, what="imported")
        wait_until(lambda: self.synced(old), timeout=60, what="indexes synced")
        self.txid = old.rpc("getblock", old.rpc("getblockhash", 900))["tx"][1]
        want = self.answers(old)
        old.stop()
        blocks = os.path.join(old.net_dir, "blocks")

        self.log("dump, then load into a new datadir beside copies of the block files")
        dump = os.path.join(self.tmpdir, "chainstate.dump")
        r = self.util(ours, "dump-chainstate", "-regtest", "-datadir=" + old.datadir,
                      "-out=" + dump)
        assert_in("chainstate: 1777 records", r.stdout)
        r = self.util(ours, "load-chainstate", "-regtest", "-datadir=" + new.datadir,
                      "-in=" + dump, "-blocksfrom=" + blocks)
        backend = r.stdout.split("(")[1].split(")")[0]
        assert_true(backend in BACKENDS, "backend named: %s" % r.stdout)
        again = os.path.join(self.tmpdir, "again.dump")
        self.util(ours, "dump-chainstate", "-regtest", "-datadir=" + new.datadir,
                  "-out=" + again)
        with open(dump, "rb") as a, open(again, "rb") as b:
            assert_true(a.read() == b.read(), "the loaded datadir dumps the same bytes")
        self.check_node(new, ours, want)
        new.stop()
        new.start([TIPAGE])
        addr = segwit_address("bcrt", 0, hash160(Key(0x77).pubkey))
        new.rpc("generatetoaddress", 1, addr)
        assert_equal(new.rpc("getblockcount"), 1301)
        new.stop()

        self.log("refusals")
        r = self.util(ours, "load-chainstate", "-regtest", "-datadir=" + new.datadir,
                      "-in=" + dump, ok=False)
        assert_in("already exists: load into a datadir without a chainstate", r.stderr)
        other = os.path.join(self.tmpdir, "other")
        r = self.util(ours, "load-chainstate", "-chain=main", "-datadir=" + other,
                      "-in=" + dump, ok=False)
        assert_in("is a dump of another chain than main", r.stderr)
        with open(dump, "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmpdir, "cut.dump")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        r = self.util(ours, "load-chainstate", "-regtest", "-datadir=" + other, "-in=" + cut,
                      "-blocksfrom=" + blocks, ok=False)
        assert_in("the dump ends early", r.stderr)
        flipped = os.path.join(self.tmpdir, "flipped.dump")
        with open(flipped, "wb") as f:
            f.write(data[:-40] + bytes([data[-40] ^ 1]) + data[-39:])
        r = self.util(ours, "load-chainstate", "-regtest", "-datadir=" + other,
                      "-in=" + flipped, "-blocksfrom=" + blocks, ok=False)
        assert_in("the dump is damaged", r.stderr)
        node_other = subprocess.run([os.path.join(ours, "bitnoded"), "-regtest",
                                     "-datadir=" + other], capture_output=True, text=True,
                                    timeout=30)
        assert_true(node_other.returncode != 0, "a datadir whose load did not finish")
        assert_in("load-chainstate into", node_other.stderr)
        assert_in("did not finish", node_other.stderr)
        self.util(ours, "load-chainstate", "-regtest", "-datadir=" + other, "-in=" + dump,
                  "-blocksfrom=" + blocks)
        linked = os.path.join(self.tmpdir, "linked")
        self.util(ours, "load-chainstate", "-regtest", "-datadir=" + linked, "-in=" + dump,
                  "-blocksfrom=" + blocks, "-hardlink")
        assert_true(os.path.samefile(os.path.join(blocks, "blk00000.dat"),
                                     os.path.join(linked, "regtest", "blocks", "blk00000.dat")),
                    "-hardlink links the block files")
        wrong = os.path.join(self.tmpdir, "wrong")
        os.makedirs(os.path.join(wrong, "regtest", "blocks"))
        with open(os.path.join(wrong, "regtest", "blocks", "blk00000.dat"), "wb") as f:
            f.write(b"\0" * 10)
        r = self.util(ours, "load-chainstate", "-regtest", "-datadir=" + wrong, "-in=" + dump,
                      ok=False)
        assert_in("not the same files", r.stderr)
        self.log("  an xor.dat in the target that is not the source's is refused")
        keyed = os.path.join(self.tmpdir, "keyed")
        os.makedirs(os.path.join(keyed, "regtest", "blocks"))
        with open(os.path.join(blocks, "xor.dat"), "rb") as f:
            key = f.read()
        with open(os.path.join(keyed, "regtest", "blocks", "xor.dat"), "wb") as f:
            f.write(bytes(b ^ 0xff for b in key))
        r = self.util(ours, "load-chainstate", "-regtest", "-datadir=" + keyed, "-in=" + dump,
                      "-blocksfrom=" + blocks, ok=False)
        assert_in("is another XOR key than the source's", r.stderr)
        with open(os.path.join(other, "regtest", "blocks", "xor.dat"), "rb") as f:
            assert_equal(f.read(), key)  # the key came with the block files

        self.log("the other backends' builds beside this one")
        root = os.path.dirname(os.path.abspath(ours))
        others = [os.path.join(root, b) for b in BACKENDS if b != backend and
                  os.path.exists(os.path.join(root, b, "bitnode-util")) and
                  os.path.exists(os.path.join(root, b, "bitnoded"))]
        self.log("found: %s" % ([os.path.basename(o) for o in others] or "none"))
        for i, build in enumerate(others):
            target = os.path.join(self.tmpdir, "to-%d" % i)
            r = self.util(build, "load-chainstate", "-regtest", "-datadir=" + target,
                          "-in=" + dump, "-blocksfrom=" + blocks)
            assert_in("(%s)" % os.path.basename(build), r.stdout)
            node = self.nodes[1]
            node.datadir, node.net_dir = target, os.path.join(target, "regtest")
            with open(os.path.join(self.tmpdir, "node1", "bitnode.conf")) as f:
                conf = f.read()
            with open(os.path.join(target, "bitnode.conf"), "w") as f:
                f.write(conf)
            back = os.path.join(self.tmpdir, "back-%d.dump" % i)
            self.util(build, "dump-chainstate", "-regtest", "-datadir=" + target,
                      "-out=" + back)
            with open(back, "rb") as f:
                assert_true(f.read() == data, "%s dumps the same bytes" % build)
            self.check_node(node, build, want)
            node.stop()
            home = os.path.join(self.tmpdir, "home-%d" % i)
            self.util(ours, "load-chainstate", "-regtest", "-datadir=" + home, "-in=" + back,
                      "-blocksfrom=" + blocks)


if __name__ == "__main__":
    MigrateBackendTest().main()
