#!/usr/bin/env python3
"""Start-up as Bitcoin Core's (doc/running.md, "Start-up and its log"):

- a normal start with -txospenderindex -coinstatsindex -blockfilterindex logs Core's stage
  lines in Core's order ("Loading block index", "Checking all blk files are present...",
  "Loaded best chain", "Verifying blocks", "Verifying last 6 blocks at level 3", "Starting
  network threads", "Loading P2P addresses", "Loading banlist", "Done loading") and Core's
  thread lines (scheduler, http, initload, net, addcon, msghand, blkfltbscidx, coinstatsidx,
  txospenderidx start; scheduler exit on stop);
- a SIGTERM at each of several of those lines (and at "Reindexing block file blk00000.dat"
  with -reindex, then at lines of the resumed reindex) exits 0, and a normal start then has
  the whole chain and every index synced to its tip;
- start-up errors with Core's words: a blk file the block index needs missing ("Error
  loading block database"), a damaged block among the last -checkblocks ("Corrupted block
  database detected"; not checked with -checkblocks=1 when it is not the tip), and on the
  LevelDB build only, the table files of blocks/index or chainstate deleted ("Error opening
  block database", "Error opening coins database", with LevelDB's "Fatal LevelDB error:");
- the block filter index store of the older layout (directly in
  indexes/blockfilter/basic) is moved to Core's indexes/blockfilter/basic/db;
- a blank -addnode value is ignored with Core's warning; -connect=0's parameter interaction
  for -dnsseed is logged only when -dnsseed is not set (the framework's bitnode.conf sets
  dnsseed=0).
"""

import hashlib
import os
import shutil
import signal
import struct
import time

from blocktools import read_xor_key, unxor
from framework import (BitnodeTestFramework, FailedCheck, assert_equal, assert_in,
                       assert_true, wait_until)

ADDR = "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw"
INDEXES = ["-txospenderindex", "-coinstatsindex", "-blockfilterindex"]
INDEX_NAMES = ("basic block filter index", "coinstatsindex", "txospenderindex")
HEIGHT = 120
REGTEST_MAGIC = bytes.fromhex("fabfb5da")

# Core's stage lines, in the order a start logs them.
STAGES = [
    "init message: Loading block index",
    "Checking all blk files are present...",
    "Loaded best chain: hashBestChain=",
    "init message: Verifying blocks",
    "Verifying last 6 blocks at level 3",
    "init message: Starting network threads",
    "Loading P2P addresses",
    "Loading banlist",
    "init message: Done loading",
]
THREADS = ["scheduler", "http", "initload", "net", "addcon", "msghand", "blkfltbscidx",
           "coinstatsidx", "txospenderidx"]

# Where a start is stopped by SIGTERM: (extra arguments, the line waited for). After the
# -reindex one the reindex is resumed by the starts that follow (its flag stays set), which
# neither verify blocks nor, maybe, have a tip: only lines every start logs come after it.
INTERRUPTS = [
    ([], "init message: Loading block index"),
    ([], "Checking all blk files are present..."),
    ([], "Loaded best chain: hashBestChain="),
    ([], "init message: Verifying blocks"),
    ([], "blkfltbscidx thread start"),
    ([], "initload thread start"),
    ([], "init message: Starting network threads"),
    ([], "Loading P2P addresses"),
    ([], "init message: Done loading"),
    (["-reindex"], "Reindexing block file blk00000.dat"),
    ([], "init message: Loading block index"),
    ([], "initload thread start"),
    ([], "init message: Done loading"),
]


def dsha256(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def block_records(path):
    """(offset of the block, its length, its hash as RPC shows it) for each record of a blk
    file: 4-byte magic, 4-byte little-endian length, the block; zeros past the last one."""
    with open(path, "rb") as f:
        data = unxor(f.read(), read_xor_key(os.path.dirname(path)))
    out = []
    pos = 0
    while pos + 8 <= len(data) and data[pos:pos + 4] == REGTEST_MAGIC:
        length = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        start = pos + 8
        out.append((start, length, dsha256(data[start:start + 80])[::-1].hex()))
        pos = start + length
    return out


class StartupTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    # ---- helpers ------------------------------------------------------------------------

    def log_size(self):
        node = self.nodes[0]
        return os.path.getsize(node.debug_log) if os.path.exists(node.debug_log) else 0

    def log_since(self, offset):
        with open(self.nodes[0].debug_log, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", errors="replace")

    def path(self, *parts):
        return os.path.join(self.nodes[0].net_dir, *parts)

    def start(self, extra_args=()):
        """A start whose log is read from here on; returns the log offset."""
        offset = self.log_size()
        self.nodes[0].start(list(extra_args))
        return offset

    def indexes_at(self, height):
        info = self.nodes[0].rpc("getindexinfo")
        return (sorted(info) == sorted(INDEX_NAMES) and
                all(v == {"synced": True, "best_block_height": height} for v in info.values()))

    def check_chain(self, timeout=60):
        """The node (started with the indexes) has the whole chain and every index at its
        tip. getmempoolinfo's loaded turns true once the stored blocks and an interrupted
        -reindex are in."""
        node = self.nodes[0]
        wait_until(lambda: node.rpc("getmempoolinfo")["loaded"], timeout=timeout,
                   what="the chain imported (mempool loaded)")
        assert_equal(node.rpc("getblockcount"), HEIGHT)
        assert_equal(node.rpc("getbestblockhash"), self.tip)
        wait_until(lambda: self.indexes_at(HEIGHT), timeout=timeout,
                   what="every index synced to %d" % HEIGHT)

    def clean_start(self):
        self.start(INDEXES)
        self.check_chain()
        self.nodes[0].stop()

    def sigterm_at(self, extra_args, line, timeout=60):
        """Starts the node, waits for line in its debug.log, sends SIGTERM; the exit must be
        clean (0). Returns whether the node was still running when the signal went out, and
        the log of this start."""
        node = self.nodes[0]
        offset = self.log_size()
        node.start(list(extra_args), wait=False)
        deadline = time.time() + timeout
        seen = b""
        with_line = line.encode()
        while True:
            try:
                with open(node.debug_log, "rb") as f:
                    f.seek(offset)
                    seen = f.read()
            except FileNotFoundError:
                seen = b""
            if with_line in seen:
                break
            if node.process.poll() is not None:
                raise FailedCheck("bitnoded exited (%s) before logging %r: %s" %
                                  (node.process.returncode, line, node.stderr_text()))
            if time.time() > deadline:
                raise FailedCheck("%r not logged within %ds" % (line, timeout))
            time.sleep(0.001)
        running = node.process.poll() is None
        node.process.send_signal(signal.SIGTERM)
        rc = node.wait_exit(timeout=60)
        node.process = None
        if rc != 0:
            raise FailedCheck("SIGTERM at %r (%s): exit code %s; stderr: %s" %
                              (line, " ".join(extra_args), rc, node.stderr_text()))
        text = self.log_since(offset)
        assert_in("Shutdown: done", text)
        return running, text

    # ---- run -------------------------------------------------------------------------------

    def run_test(self):
        node = self.nodes[0]
        self.log("setup: %d blocks with the three indexes" % HEIGHT)
        self.start(INDEXES)
        node.rpc("generatetoaddress", HEIGHT, ADDR)
        self.tip = node.rpc("getbestblockhash")
        self.hashes = [node.rpc("getblockhash", h) for h in range(HEIGHT + 1)]
        wait_until(lambda: self.indexes_at(HEIGHT), timeout=60, what="indexes synced")
        node.stop()
        with open(self.path("blocks", "index", "BACKEND")) as f:
            self.backend = f.read().strip()
        assert_in(self.backend, ("leveldb", "rocksdb", "lmdb", "bdb"))
        self.log("storage backend: %s (from blocks/index/BACKEND)" % self.backend)

        self.test_stage_lines()
        self.test_interrupted_startup()
        self.test_missing_blk_file()
        self.test_damaged_block()
        self.test_leveldb_files_missing()
        self.test_filter_store_moved()
        self.test_blank_addnode()

    def test_stage_lines(self):
        self.log("stage lines and thread lines of a normal start, in Core's order")
        node = self.nodes[0]
        offset = self.start(INDEXES)
        wait_until(lambda: all("%s thread start" % t in self.log_since(offset) for t in THREADS),
                   timeout=30, what="every thread's start line")
        self.check_chain()
        node.stop()
        text = self.log_since(offset)
        pos = -1
        for stage in STAGES:
            at = text.find(stage, pos + 1)
            if at < 0:
                raise FailedCheck("%r not logged after %r" %
                                  (stage, STAGES[STAGES.index(stage) - 1] if pos >= 0 else
                                   "the start"))
            pos = at
        assert_in("Loaded best chain: hashBestChain=%s height=%d" % (self.tip, HEIGHT), text)
        for t in THREADS:
            assert_in("%s thread start" % t, text)
        assert_in("scheduler thread exit", text)
        assert_true(text.find("scheduler thread exit") > text.find("init message: Done loading"),
                    "the scheduler exits at the stop")

    def test_interrupted_startup(self):
        self.log("SIGTERM at each of %d lines of start-up (one with -reindex) exits 0" %
                 len(INTERRUPTS))
        reindex_pending = False
        for extra, line in INTERRUPTS:
            t0 = time.time()
            running, text = self.sigterm_at(INDEXES + extra, line)
            if reindex_pending:
                # A reindex stopped before "Reindexing finished" (logged once its flag is
                # cleared) leaves the flag set: this start must have gone on with it.
                assert_in("resuming an interrupted reindex", text)
            if "-reindex" in extra or reindex_pending:
                reindex_pending = "Reindexing finished" not in text
            self.log("  %s%r: exit 0 in %.2fs%s%s" % (
                " ".join(extra) + " " if extra else "", line, time.time() - t0,
                "" if running else " (had exited)",
                " (reindex not finished)" if reindex_pending else ""))
        self.log("then a normal start has the %d blocks and every index at the tip" % HEIGHT)
        self.clean_start()

    def test_missing_blk_file(self):
        self.log("a blk file the block index needs is missing: Error loading block database")
        node = self.nodes[0]
        blk = self.path("blocks", "blk00000.dat")
        away = blk + ".away"
        os.rename(blk, away)
        try:
            r = node.assert_start_fails(INDEXES, "Error loading block database")
            assert_in("Please restart with -reindex or -reindex-chainstate to recover.", r.stderr)
        finally:
            os.rename(away, blk)
        self.clean_start()

    def test_damaged_block(self):
        node = self.nodes[0]
        blk = self.path("blocks", "blk00000.dat")
        records = block_records(blk)
        by_hash = {h: (off, length) for off, length, h in records}
        assert_equal(len(records), HEIGHT + 1)
        damaged_height = HEIGHT - 2
        off, length = by_hash[self.hashes[damaged_height]]
        # The last byte of a coinbase-only block is its coinbase's nLockTime: changing it
        # changes the txid, so the merkle root no longer matches.
        at = off + length - 1
        self.log("a damaged block (height %d of %d, blk00000.dat offset %d): Corrupted block "
                 "database detected" % (damaged_height, HEIGHT, at))
        with open(blk, "r+b") as f:
            f.seek(at)
            original = f.read(1)
            f.seek(at)
            f.write(bytes([original[0] ^ 0xff]))
        try:
            r = node.assert_start_fails(["-checkblocks=200", "-checklevel=4"],
                                        "Corrupted block database detected")
            assert_in("Please restart with -reindex or -reindex-chainstate to recover.", r.stderr)
            self.log("  the same damage is not looked at with -checkblocks=1 (not the tip)")
            offset = self.start(["-checklevel=0", "-checkblocks=1"])
            assert_equal(node.rpc("getblockcount"), HEIGHT)
            node.stop()
            assert_in("Verifying last 1 blocks at level 0", self.log_since(offset))
        finally:
            with open(blk, "r+b") as f:
                f.seek(at)
                f.write(original)
        self.clean_start()

    def test_leveldb_files_missing(self):
        if self.backend != "leveldb":
            self.log("deleted LevelDB tables: skipped (the %s build)" % self.backend)
            return
        node = self.nodes[0]
        for store, words in (("blocks/index", "Error opening block database"),
                             ("chainstate", "Error opening coins database")):
            self.log("LevelDB: %s/*.ldb deleted: %s" % (store, words))
            d = self.path(*store.split("/"))
            backup = os.path.join(self.tmpdir, "backup-" + store.replace("/", "-"))
            shutil.copytree(d, backup)
            tables = [f for f in os.listdir(d) if f.endswith(".ldb")]
            assert_true(tables, "%s has table files to delete" % store)
            for f in tables:
                os.unlink(os.path.join(d, f))
            try:
                r = node.assert_start_fails(INDEXES, words)
                assert_in("Fatal LevelDB error:", r.stderr)
                assert_in("Please restart with -reindex or -reindex-chainstate to recover.",
                          r.stderr)
            finally:
                shutil.rmtree(d)
                shutil.copytree(backup, d)
                shutil.rmtree(backup)
            self.clean_start()

    def test_filter_store_moved(self):
        self.log("the block filter index store of the older layout moves to basic/db")
        node = self.nodes[0]
        basic = self.path("indexes", "blockfilter", "basic")
        db = os.path.join(basic, "db")
        assert_true(os.path.isfile(os.path.join(db, "BACKEND")), "the store in basic/db")
        for name in os.listdir(db):
            os.rename(os.path.join(db, name), os.path.join(basic, name))
        os.rmdir(db)
        assert_true(os.path.isfile(os.path.join(basic, "BACKEND")), "the older layout")
        offset = self.start(["-blockfilterindex"])
        text = self.log_since(offset)
        assert_in("Moving the block filter index store", text)
        assert_true(os.path.isfile(os.path.join(db, "BACKEND")), "the store back in basic/db")
        assert_true(not os.path.exists(os.path.join(basic, "BACKEND")),
                    "no store left in basic itself")
        assert_true(not os.path.exists(basic + ".moving"), "basic.moving gone")
        wait_until(lambda: node.rpc("getindexinfo") ==
                   {"basic block filter index": {"synced": True, "best_block_height": HEIGHT}},
                   timeout=60, what="the moved filter index synced at the tip")
        f = node.rpc("getblockfilter", self.tip)
        assert_true(f["filter"] and len(f["header"]) == 64, "a filter for the tip: %r" % f)
        node.stop()
        # A second start finds Core's layout and moves nothing.
        offset = self.start(["-blockfilterindex"])
        assert_equal(node.rpc("getblockfilter", self.tip), f)
        node.stop()
        assert_true("Moving the block filter index store" not in self.log_since(offset),
                    "nothing moved the second time")

    def test_blank_addnode(self):
        node = self.nodes[0]
        conf = os.path.join(node.datadir, "bitnode.conf")
        with open(conf) as fh:
            conf_text = fh.read()
        # What follows from the framework's configuration: dnsseed is set there, so -connect=0
        # changes nothing about it and Core logs no parameter interaction for it.
        assert_in("dnsseed=0\n", conf_text)
        interaction = ("parameter interaction: -connect or -maxconnections=0 set -> setting "
                       "-dnsseed=0")

        self.log("blank -addnode values ignored with Core's warning; -connect=0 with dnsseed "
                 "set in bitnode.conf: no -dnsseed interaction")
        offset = self.start(["-addnode= ", "-addnode=some.node", "-connect=0"])
        added = node.rpc("getaddednodeinfo")
        node.stop()
        assert_equal([a["addednode"] for a in added], ["some.node"])
        text = self.log_since(offset)
        assert_in("Ignoring empty -addnode value", text)
        assert_true(interaction not in text, "no -dnsseed interaction with dnsseed=0 set")

        self.log("-connect=0 with dnsseed not set: the -dnsseed parameter interaction logged")
        with open(conf, "w") as fh:
            fh.write(conf_text.replace("dnsseed=0\n", ""))
        try:
            offset = self.start(["-connect=0"])
            node.stop()
            assert_in(interaction, self.log_since(offset))
        finally:
            with open(conf, "w") as fh:
                fh.write(conf_text)


if __name__ == "__main__":
    StartupTest().main()
