#!/usr/bin/env python3
"""A disk that fills stops the node cleanly, with Core's words on the console; with space
again it goes on with nothing lost.

The datadirs live on a 400 MiB tmpfs (mounted by the test: CI runs as root; room for two
nodes of any backend, BDB's and RocksDB's logs preallocated, with Core's margin) whose free
space a filler file outside the datadirs sets (fallocate). A generated chain of 185 blocks (about
19 MB, bitnode-util genchain) is the data. Core's checks (CheckDiskSpace: 50 MiB must stay
free beyond what is written) are what stop the node, by place:

1. start-up with less than 50 MiB free: refused, "Error: Disk space is low for ..." (exit 1);
   a first start of a signet node (Core assumes 24 GB of blocks) on the tmpfs: Core's
   warning "Disk space for ... may not accommodate the block files", and it runs;
2. -loadblock import: a new block-file chunk needs 50 MiB + 16 MiB free: the node stops by
   itself (blocks stored first) with "Error: A fatal internal error occurred, see debug.log for details: Disk space
   is too low!" on stderr and in the log, exit status 1;
3. P2P sync with -txindex from a second node (on the ordinary disk) serving the blocks: the
   same stop; the index is kept behind the coins;
4. the flush at shutdown, and the mempool.dat, peers.dat, fee_estimates.dat written then,
   on a disk with no byte free: the flush stops with the same message (exit 1), the small
   files' writes fail in their temp files, and the files of the last clean stop stay whole
   (no truncated file, no temp file left).
5. an optional index whose store is full (its db directory a 32 KiB tmpfs): the node stops
   as Core's BaseIndex::FatalErrorf does, the store's error on stderr, exit 1 (on RocksDB
   too: its library aborted there while its LOG file carried warnings, see src/kv/rocksdb.c).
After each, with the room given back, a restart reaches the chain's tip with the UTXO set
hash genchain computed (and the transaction index, the coin statistics index synced).

Where mounting is not allowed, a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored: writes
past it fail with EFBIG) stands in for the full disk in the import (2) only.
"""

import os
import re
import resource
import signal
import shutil
import subprocess

from framework import (CHAIN, BitnodeTestFramework, TestNode, assert_equal, assert_in, builddir,
                       wait_until)

MIB = 1024 * 1024
LIMIT_BYTES = 18 * MIB
FATAL = ("Error: A fatal internal error occurred, see debug.log for details: "
         "Disk space is too low!")


class LimitedNode(TestNode):
    """A node whose files cannot grow past LIMIT_BYTES while limited is set."""

    limited = False

    def start(self, extra_args=None, wait=True):
        if not self.limited:
            return super().start(extra_args, wait)

        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))
        self.stderr_file = open(self.stderr_path, "w")
        self.stdout_file = open(self.stdout_path, "w")
        self.process = subprocess.Popen(self.args(extra_args), stdout=self.stdout_file,
                                        stderr=self.stderr_file, preexec_fn=limit)
        if wait:
            self.wait_for_rpc()


class DiskFullTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 0
        self.start_nodes_at_setup = False

    def free_to(self, free):
        """Sets the tmpfs's free bytes to free (the filler file takes the rest); returns
        them (free None: only measures)."""
        filler = os.path.join(self.mnt, "filler")
        have = os.path.getsize(filler) if os.path.exists(filler) else 0
        st = os.statvfs(self.mnt)
        avail = st.f_bavail * st.f_frsize
        if free is None:
            return avail  # only measured
        want = max(0, have + avail - free)
        if os.path.exists(filler):
            os.unlink(filler)
        if want:
            with open(filler, "wb") as f:
                try:
                    os.posix_fallocate(f.fileno(), 0, want)
                except OSError:
                    pass  # a disk with no byte free: what is there stays
        st = os.statvfs(self.mnt)
        return st.f_bavail * st.f_frsize

    def room(self):
        filler = os.path.join(self.mnt, "filler")
        if os.path.exists(filler):
            os.unlink(filler)

    def stopped_full(self, node, what):
        rc = node.wait_exit(timeout=300)
        node.process = None
        log = open(node.debug_log, errors="replace").read()
        assert_equal(rc, 1)
        assert_in(FATAL, node.stderr_text())
        assert_equal("Disk space is low for" in node.stderr_text(), False)  # it had started
        assert_in("Disk space is too low!", log)
        assert_in("Shutdown: done", log)
        self.log("  %s: stopped (exit 1) with Core's words on stderr and in the log" % what)

    def at_tip(self, node, height, want_hash, start_args):
        node.start(start_args)
        wait_until(lambda: node.rpc("getblockcount") == height, timeout=300,
                   what="height %d" % height)
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], want_hash)

    def run_test(self):
        chain = os.path.join(self.tmpdir, "chain.dat")
        out = subprocess.run([os.path.join(builddir(), "bitnode-util"), "genchain", "--blocks",
                              "185", "--txs", "400", "--seed", "3", "--out", chain],
                             capture_output=True, text=True, check=True).stdout
        want_hash = re.search(r"hash_serialized_3: (\w+)", out).group(1)
        assert_equal(os.path.getsize(chain) > 17 * MIB, True)
        load = ["-loadblock=" + chain, "-assumevalid=0"]

        self.mnt = os.path.join(self.tmpdir, "small")
        os.makedirs(self.mnt)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400m", "tmpfs",
                                  self.mnt], capture_output=True).returncode == 0
        try:
            if mounted:
                self.run_mounted(chain, want_hash, load)
            else:
                self.run_limited(want_hash, load)
        finally:
            for n in self.nodes:
                if n.process is not None and n.process.poll() is None:
                    n.kill()
            if getattr(self, "small_index", None):
                subprocess.run(["umount", self.small_index])
            if mounted:
                self.keep_logs()
                subprocess.run(["umount", self.mnt])

    def run_limited(self, want_hash, load):
        node = LimitedNode(0, self.tmpdir)
        self.nodes.append(node)
        node.limited = True
        self.log("import onto a disk that fills (RLIMIT_FSIZE %d MiB: mount is not allowed "
                 "here)" % (LIMIT_BYTES >> 20))
        node.start(load)
        rc = node.wait_exit(timeout=300)
        log = open(node.debug_log, errors="replace").read()
        assert_equal(rc, 1)
        assert_in("import failed: I/O error; shutting down", log)
        assert_in("File too large", log)
        assert_in("Error: A fatal internal error occurred", node.stderr_text())
        assert_in("Shutdown: done", log)
        node.limited = False
        self.at_tip(node, 185, want_hash, load)
        node.stop()

    def on_tmpfs(self, index):
        """A node whose datadir is on the tmpfs, its console (stdout, stderr) off it: a
        full disk takes its debug.log, not what the test reads."""
        node = TestNode(index, self.mnt)
        node.stderr_path = os.path.join(self.tmpdir, "node%d-stderr.txt" % index)
        node.stdout_path = os.path.join(self.tmpdir, "node%d-stdout.txt" % index)
        self.nodes.append(node)
        return node

    def run_mounted(self, chain, want_hash, load):
        node = self.on_tmpfs(0)

        self.log("1. start-up with less than 50 MiB free is refused")
        self.free_to(40 * MIB)
        r = subprocess.run(node.args(), capture_output=True, text=True, timeout=60)
        assert_equal(r.returncode, 1)
        assert_in('Error: Error: Disk space is low for "%s' % node.datadir, r.stderr)
        self.room()
        node.start([])
        wait_until(lambda: node.rpc("getblockcount") == 0, timeout=60, what="genesis")
        node.stop()

        self.log("1b. a first start on a disk that cannot take the chain: Core's warning")
        # Signet (Core assumes 24 GB of blocks; regtest assumes none), no peers, no RPC.
        sig = os.path.join(self.mnt, "signet")
        os.makedirs(sig)
        p = subprocess.Popen([node.bitnoded, "-signet", "-datadir=" + sig, "-connect=0",
                              "-listen=0", "-dnsseed=0", "-fixedseeds=0", "-server=0",
                              "-printtoconsole=0"], stderr=subprocess.PIPE, text=True)
        sig_log = os.path.join(sig, "signet", "debug.log")
        wait_until(lambda: os.path.exists(sig_log) and "init message: Done loading" in
                   open(sig_log, errors="replace").read(), timeout=60, what="signet start")
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        assert_equal(p.returncode, 0)
        assert_in('Warning: Disk space for "%s' % sig, err)
        assert_in("may not accommodate the block files. Approximately 24 GB of data will be "
                  "stored in this directory.", err)
        shutil.rmtree(sig)

        self.log("2. an import stops at Core's margin")
        self.free_to(60 * MIB)  # the first 16 MiB chunk is there, the second does not fit
        node.start(load, wait=False)
        self.stopped_full(node, "-loadblock")
        self.room()
        self.at_tip(node, 185, want_hash, load)
        node.stop()
        self.log("  with room again: the tip, the UTXO set hash genchain computed")

        self.log("3. P2P sync with -txindex from a second node")
        server = TestNode(1, self.tmpdir)
        self.nodes.append(server)
        server.start(load)
        wait_until(lambda: server.rpc("getblockcount") == 185, timeout=300, what="server")
        sync = self.on_tmpfs(2)
        peer = ["-connect=127.0.0.1:%d" % server.p2p_port, "-txindex"]
        # Started (its start-up checks passed) with no peer; then the disk is left 52 MiB
        # free (Core's margin passes, a new 16 MiB block-file chunk does not fit) and the
        # peer is given: the sync meets the margin, whatever the backend's logs took.
        sync.start(["-txindex", "-connect=0"])
        self.free_to(52 * MIB)
        sync.rpc("addnode", "127.0.0.1:%d" % server.p2p_port, "onetry")
        self.stopped_full(sync, "P2P sync")
        self.room()
        self.at_tip(sync, 185, want_hash, peer)
        wait_until(lambda: sync.rpc("getindexinfo")["txindex"]["synced"], timeout=120,
                   what="txindex synced")
        assert_equal(sync.rpc("getindexinfo")["txindex"]["best_block_height"], 185)
        sync.stop()
        self.log("  with room again: the tip, the hash and the transaction index")

        self.log("4. the flush and the small files at shutdown on a disk with no byte free")
        sync.start(peer)
        wait_until(lambda: sync.rpc("getconnectioncount") > 0, timeout=60, what="peer")
        sync.stop()  # a clean stop writes mempool.dat, peers.dat, fee_estimates.dat
        small = ["mempool.dat", "peers.dat", "fee_estimates.dat"]
        before = {f: open(os.path.join(sync.net_dir, f), "rb").read() for f in small}
        # The log on the console too: debug.log, on the full disk, loses lines.
        sync.start(peer + ["-printtoconsole"])
        wait_until(lambda: sync.rpc("getconnectioncount") > 0, timeout=60, what="peer")
        left = self.free_to(0)
        assert_equal(left < 64 * 1024, True)
        sync.rpc("stop")
        assert_equal(sync.wait_exit(timeout=120), 1)
        sync.process = None
        assert_in(FATAL, sync.stderr_text())
        console = open(sync.stdout_path, errors="replace").read()
        assert_in("Disk space is too low!", console)
        assert_in("Failed to dump mempool", console)
        assert_in("Shutdown: done", console)
        self.log("  flush at shutdown: stopped (exit 1) with Core's words on stderr")
        for f in small:
            data = open(os.path.join(sync.net_dir, f), "rb").read()
            assert_equal(len(data) >= len(before[f]) and len(data) > 0, True)
        leftovers = [f for f in os.listdir(sync.net_dir) if f.endswith((".new", ".tmp"))]
        assert_equal(leftovers, [])
        self.room()
        self.at_tip(sync, 185, want_hash, peer)
        log = open(sync.debug_log, errors="replace").read()
        assert_in("Loaded", log)
        sync.stop()
        server.stop()
        self.log("  the files of the last clean stop stayed whole; a restart reads them")

        self.log("5. an index's store on a full disk (a 32 KiB tmpfs of its own)")
        idx = TestNode(3, self.tmpdir)
        self.nodes.append(idx)
        idx.start(load)
        wait_until(lambda: idx.rpc("getblockcount") == 185, timeout=300, what="import")
        idx.stop()
        db = os.path.join(idx.net_dir, "indexes", "coinstatsindex", "db")
        os.makedirs(db)
        self.small_index = db
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", db], check=True)
        idx.start(["-coinstatsindex"], wait=False)
        rc = idx.wait_exit(timeout=300)
        idx.process = None
        err = idx.stderr_text()
        self.log("  stderr: %s" % err.strip().replace("\n", " | "))
        assert_equal(rc, 1)
        assert_in("Error: A fatal internal error occurred, see debug.log for details: ", err)
        # The store's own message, naming it (LevelDB, RocksDB and BDB: ENOSPC, Core's
        # "System error while flushing"; LMDB reports the failed commit as EIO).
        assert_in("indexes/coinstatsindex/db", err)
        subprocess.run(["umount", db], check=True)
        self.small_index = None
        idx.start(["-coinstatsindex"])
        wait_until(lambda: idx.rpc("getindexinfo")["coinstatsindex"]["synced"], timeout=300,
                   what="coinstatsindex synced")
        assert_equal(idx.rpc("getindexinfo")["coinstatsindex"]["best_block_height"], 185)
        assert_equal(idx.rpc("gettxoutsetinfo")["hash_serialized_3"], want_hash)
        idx.stop()
        self.log("  stopped (exit 1) naming the failure; with room the index syncs")

    def keep_logs(self):
        """Copies the tmpfs nodes' datadirs off it for the framework's report."""
        for n in self.nodes:
            for f in (getattr(n, "stderr_file", None), getattr(n, "stdout_file", None)):
                if f is not None:
                    f.close()
            if not n.datadir.startswith(self.mnt):
                continue
            copy = os.path.join(self.tmpdir, "node%d" % n.index)
            shutil.copytree(n.datadir, copy, ignore=shutil.ignore_patterns("blk*", "rev*"))
            n.datadir, n.net_dir = copy, os.path.join(copy, CHAIN)


if __name__ == "__main__":
    DiskFullTest().main()
