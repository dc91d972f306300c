#!/usr/bin/env python3
"""A power cut at any instant leaves a datadir the node comes back from on its own.

A SIGKILL keeps the page cache, so it says nothing about fsyncs. Here the node runs under the
power-loss layer (test/util/powerloss.so, LD_PRELOAD; its model is in powerloss.c): every
change to the datadir first saves what was last synced, and after the kill
`powerloss-restore restore` rolls the datadir back to what the syncs made durable, as a power
cut would leave it (writes not synced are lost, and files created, renamed or removed since
the last fsync go back).

Two ways of flushing, each on a datadir of its own, importing the bundled regtest chain:
- Core's: -dbcache=4 -maxmempool=0, the cache full at every block, so every block ends in a
  flush whose coins are written but not synced (written by the cache's writer thread); a
  power cut may lose them, and the node connects the stored blocks again from the best
  block the coins store kept;
- forced: -testflushblocks=25, a flush every 25 blocks that syncs the coins too.
In both, the block of the last flush logged "and synced" before a cut must still be the
node's at the next start.
Each cut lands right after the first flush line in the debug log at or above a random
height, or at a random moment (at most 1.5 s in) if that comes first: in and between
flushes, and in start-up's own connection of the stored blocks. Each cut is followed by a restore and a start that must not fail,
and the last one comes at the tip; the node then reaches Core's tip and UTXO set hashes
(expected.json) with no operator action. Logged per cut: the height reached before it and
the height the next start loaded (the work the cut lost).

Skipped on a sanitizer build (its runtime refuses a preloaded library).
"""

import json
import os
import random
import re
import subprocess
import time

from framework import (BitnodeTestFramework, FailedCheck, TestNode, assert_equal, assert_true,
                       builddir, wait_until)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
FLUSHED = re.compile(r"flushed \d+ bytes of coins cache .* at height (\d+)")
SYNCED = re.compile(r"flushed \d+ bytes of coins cache \(.*\) and synced at height (\d+)")
LOADED = re.compile(r"block index \d+ entries, tip height (-?\d+)")


class PowerLossTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def layer(self):
        """The layer and its tool, built if missing; None on a sanitizer build."""
        b = builddir()
        with open(os.path.join(b, "Makefile"), errors="replace") as f:
            san = re.search(r"^SAN_CFLAGS = *(\S.*)$", f.read(), re.M)
        if san:
            return None
        shim = os.path.join(b, "test", "util", "powerloss.so")
        tool = os.path.join(b, "test", "util", "powerloss-restore")
        if not (os.path.exists(shim) and os.path.exists(tool)):
            subprocess.run(["make", "-C", b, "test/util/powerloss.so",
                            "test/util/powerloss-restore"], check=True,
                           stdout=subprocess.DEVNULL)
        return shim, tool

    def start_under_layer(self, node, args, journal):
        env = dict(LD_PRELOAD=self.shim, POWERLOSS_DIR=node.datadir, POWERLOSS_JOURNAL=journal,
                   POWERLOSS_DIRSYNC=self.dirsync)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            node.start(args, wait=False)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def log_since(self, node, offset):
        try:
            with open(node.debug_log, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def log_size(self, node):
        try:
            return os.path.getsize(node.debug_log)
        except OSError:
            return 0

    def restore(self, journal):
        r = subprocess.run([self.tool, "restore", journal], capture_output=True, text=True)
        assert_equal((r.returncode, r.stderr), (0, ""))

    def cut(self, node, args, journal, rng, at_tip=False):
        """One start under the layer, a power cut, the restore. Returns the height loaded
        at this start (-1: no tip; None: cut before it was loaded), the height reached
        before the cut (the last flush or the tip RPC gave just before it), and the last
        height flushed with the coins synced (-1: none)."""
        start = self.log_size(node)
        self.start_under_layer(node, args, journal)
        deadline = time.time() + (60 if at_tip else rng.uniform(0.05, self.max_wait))
        target = rng.randrange(0, 1300)  # cut right after the first flush at this height or above
        while time.time() < deadline:
            if node.process.poll() is not None:
                raise FailedCheck("bitnoded exited with %s before the cut: %s" %
                                  (node.process.returncode, node.stderr_text()))
            text = self.log_since(node, start)
            if at_tip:
                if self.height(node) >= 1300:
                    time.sleep(rng.uniform(0, 0.3))
                    break
            elif any(int(h) >= target for h in FLUSHED.findall(text)):
                time.sleep(rng.uniform(0, 0.01))
                break
            time.sleep(0.02 if at_tip else 0.005)
        tip = self.height(node)  # the work the cut may lose (-1: RPC still warming up)
        node.kill()
        self.restore(journal)
        text = self.log_since(node, start)
        loaded = [int(h) for h in LOADED.findall(text)]
        flushed = [int(h) for h in FLUSHED.findall(text)] or [-1]
        synced = [int(h) for h in SYNCED.findall(text)] or [-1]
        return (loaded[0] if loaded else None), max(flushed[-1], tip), synced[-1]

    def height(self, node):
        try:
            return node.rpc("getblockcount")
        except Exception:
            return -1

    def check_final(self, node, exp):
        wait_until(lambda: self.height(node) >= 1300, timeout=120, what="height 1300")
        assert_equal(node.rpc("getbestblockhash"), exp["tip"]["hash"])
        for kind in ("hash_serialized_3", "muhash"):
            got = node.rpc("gettxoutsetinfo", kind)
            assert_equal(got[kind], exp["gettxoutsetinfo_tip"][kind][kind])
            assert_equal(got["txouts"], exp["gettxoutsetinfo_tip"][kind]["txouts"])

    def drill(self, args, cuts, rng):
        """cuts power cuts, on fresh datadirs in rounds: a round ends once a start has loaded
        the tip (later cuts would find nothing left to do) or the cuts are done, with a cut
        at the tip and a start that must reach Core's tip and hashes."""
        done = 0
        while True:
            node = self.nodes[0] if not self.used_node0 else TestNode(len(self.nodes),
                                                                      self.tmpdir)
            if self.used_node0:
                self.nodes.append(node)
            self.used_node0 = True
            done += self.round(node, args, cuts - done, rng)
            if done >= cuts:
                break

    def round(self, node, args, cuts, rng):
        journal = os.path.join(self.tmpdir, "journal%d" % node.index)
        os.makedirs(journal)
        reached = synced = -1  # before the previous cut
        seen = []
        i = last_loaded = 0
        while True:
            at_tip = i >= cuts or last_loaded >= 1299
            loaded, flushed, now_synced = self.cut(node, args, journal, rng, at_tip=at_tip)
            if loaded is None:
                # Cut before the store was read: nothing to check, and nothing was flushed.
                assert_equal(now_synced, -1)
                i += 1
                continue
            if i:
                seen.append((reached, synced, loaded))
                # A flush that synced the coins survives the cut that followed it.
                assert_true(loaded >= synced, "loaded %d after a cut that followed a flush "
                            "synced at %d" % (loaded, synced))
            reached, synced = max(flushed, loaded), max(now_synced, loaded)
            last_loaded = loaded
            i += 1
            if at_tip:
                break
        start = self.log_size(node)
        self.start_under_layer(node, args, journal)
        node.wait_for_rpc()
        self.check_final(node, json.load(open(os.path.join(SMALL, "expected.json"))))
        loaded = (LOADED.findall(self.log_since(node, start)) or ["-1"])[0]
        seen.append((reached, synced, int(loaded)))
        assert_true(int(loaded) >= synced, "loaded %s after the cut at the tip, synced at %d" %
                    (loaded, synced))
        self.log("node%d, each cut: (height reached before it, synced before it, loaded after "
                 "it): %s" % (node.index, seen))
        node.stop()
        r = subprocess.run([self.tool, "counts", journal], capture_output=True, text=True)
        self.log("sync calls (label fsync fdatasync range-syncs dsync-writes writes bytes):\n" +
                 r.stdout)
        return len(seen)

    def run_test(self):
        layer = self.layer()
        if layer is None:
            self.log("skipped: a sanitizer build")
            return
        self.shim, self.tool = layer
        self.dirsync = "journal"
        rng = random.Random(int(os.environ.get("BITNODE_TEST_SEED", "20261206")))
        # A longer drill: more cuts, each up to more seconds in.
        cuts = int(os.environ.get("BITNODE_POWERLOSS_CUTS", "4"))
        self.max_wait = float(os.environ.get("BITNODE_POWERLOSS_MAX_WAIT", "1.5"))
        blk = "-loadblock=" + os.path.join(SMALL, "blk00000.dat")

        self.log("Core's flushes: a full cache at every block, coins not synced")
        self.used_node0 = False
        self.drill([blk, "-dbcache=4", "-maxmempool=0", "-debug=coindb"], cuts, rng)

        self.log("forced flushes every 25 blocks, synced")
        self.drill([blk, "-dbcache=4", "-testflushblocks=25", "-debug=coindb"], cuts, rng)

        self.log("POSIX's rule for names (a new file's name durable once its folder is "
                 "synced), -fastprune's small block files: a new one at every flush or two")
        self.dirsync = "strict"
        self.drill([blk, "-dbcache=4", "-testflushblocks=25", "-debug=coindb", "-fastprune"],
                   cuts, rng)


if __name__ == "__main__":
    PowerLossTest().main()
