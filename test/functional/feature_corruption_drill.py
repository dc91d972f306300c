#!/usr/bin/env python3
"""Corruption drill: N flipped bytes per file kind, each counted as detected or harmless;
never a crash, never a wrong answer.

A node makes a chain (110 blocks to a key of the test), holds signed transactions in its
mempool, bans two subnets, knows some peer addresses and has fee estimates, then stops
cleanly: that datadir is the pristine one, with its tip, UTXO set hash (gettxoutsetinfo),
mempool, bans and address count. Then, for each file kind and N times (DRILL_N, default 3;
DRILL_SEED picks the offsets), the pristine datadir is copied back, one byte at a random
offset of one file of that kind is XORed with a random non-zero value, and the node is
started with -checkblocks=0 -checklevel=4 (Core's VerifyDB over every block: blocks read
and checked, undo data read, disconnected and connected again). Each run is classified:

  refused   the node stops by itself (exit status 1) naming the damaged file (or, for a
            store, its directory) on stderr, with the repair Core offers for that kind:
            -reindex (block files, undo files, the block index), -reindex-chainstate (the
            chainstate), moving the file aside (peers.dat), the settings file's parse error
            (settings.json);
  reported  the node runs and its log names the file and what it dropped: mempool.dat
            ("Failed to deserialize mempool data", or transactions "failed" on import),
            fee_estimates.dat ("Unable to read policy estimator data"), banlist.json
            ("Cannot load banlist ...: Unable to parse settings file ...", Core's words);
  harmless  the node runs and, once it has connected the blocks it holds (a store that came
            back a batch behind is caught up, as after a crash), every answer is the
            pristine one: tip, UTXO set hash (read
            whole), getblock of every block, the mempool (getrawmempool verbose: fees,
            times), bans (with their times), address count, estimaterawfee. The flip hit
            bytes no reader uses (a log, free pages, padding, an unused header field) or
            a field Core does not check either;
  changed   the node runs, consensus answers are right, but the mempool's entries, bans,
            address count or fee estimates differ from the pristine ones without a word (Core's small files but
            peers.dat have no checksum either: a flip in a fee delta or a ban's expiry is
            read as it is). Counted, not failed.
  WRONG     a crash (a signal, a status other than 0 or 1), a tip or UTXO set hash or a
            block different from the pristine one with no error, a refusal that names
            neither the file nor the repair: the test fails.

Offsets are drawn within the bytes in use: every file up to its last non-zero byte (block
and undo files once the XOR key is taken off), not a preallocated tail (BDB's and RocksDB's
logs are preallocated too); store directories pick a file at random weighted by those
bytes (lock files, runtime state, and empty files excepted).
The counts are printed as a table (and written to $DRILL_REPORT if set).
"""

import json
import os
import random
import re
import shutil

from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, hash160, read_xor_key,
                        segwit_address, sign_p2wpkh)
from framework import BitnodeTestFramework, FailedCheck, JSONRPCError, assert_equal, wait_until

COIN = 100000000
CHECK = ["-checkblocks=0", "-checklevel=4"]

# kind: (path(s) under the network datadir, what a refusal must name, the repair it offers)
KINDS = [
    ("blk", "blocks/blk00000.dat", "blk00000.dat", "-reindex"),
    ("rev", "blocks/rev00000.dat", None, "-reindex"),
    ("blocks/index", "blocks/index", "index", "-reindex"),
    ("chainstate", "chainstate", "chainstate", "-reindex"),
    ("mempool.dat", "mempool.dat", "mempool.dat", None),
    ("peers.dat", "peers.dat", "peers.dat", "out of the way"),
    ("fee_estimates.dat", "fee_estimates.dat", "fee_estimates.dat", None),
    ("banlist.json", "banlist.json", "banlist.json", None),
    ("settings.json", "settings.json", "settings.json", None),
]
# A store's lock file: runtime state, rewritten at every start (LevelDB's and RocksDB's
# LOCK, LMDB's lock.mdb).
LOCKS = ("LOCK", "lock.mdb")
REPORTS = {
    "mempool.dat": ("Failed to deserialize mempool data",),
    "fee_estimates.dat": ("Unable to read policy estimator data",),
    "banlist.json": ("Cannot load banlist", "Cannot parse banlist", "Dropping entry"),
}


class CorruptionDrill(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def setup_chain(self, node):
        key = Key(0x5eed)
        addr = segwit_address("bcrt", 0, hash160(key.pubkey))
        node.start([])
        hashes = node.rpc("generatetoaddress", 110, addr)
        for i in range(6):
            cb = node.rpc("getblock", hashes[i], 2)["tx"][0]
            value = int(round(cb["vout"][0]["value"] * COIN))
            tx = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                    [TxOut(value - 2000 - 100 * i, P2WSH_TRUE)])
            sign_p2wpkh(tx, 0, key, value)
            node.rpc("sendrawtransaction", tx.hex())
        node.rpc("setban", "10.7.0.0/16", "add", 86400)
        node.rpc("setban", "192.0.2.7", "add", 0, False)
        for i in range(20):
            node.rpc("addpeeraddress", "10.%d.%d.1" % (i, i + 1), 8333)
        node.stop()
        self.pristine = os.path.join(self.tmpdir, "pristine")
        shutil.copytree(node.net_dir, self.pristine)
        node.start(["-connect=0"])
        self.want = self.answers(node)
        node.stop()
        assert_equal(len(self.want["mempool"]), 6)

    def answers(self, node):
        """What a sound node answers (compared run by run)."""
        tip = node.rpc("getbestblockhash")
        height = node.rpc("getblockcount")
        blocks = [node.rpc("getblockhash", h) for h in range(height + 1)]
        return {
            "tip": tip,
            "utxo": node.rpc("gettxoutsetinfo")["hash_serialized_3"],
            "blocks": [node.rpc("getblock", h, 0) for h in blocks],
            "mempool": sorted(node.rpc("getrawmempool")),
            "entries": node.rpc("getrawmempool", True),
            "bans": sorted((b["address"], b["ban_created"], b["banned_until"])
                           for b in node.rpc("listbanned")),
            "addrs": len(node.rpc("getnodeaddresses", 0)),
            "fees": [node.rpc("estimaterawfee", t) for t in (1, 6, 24)],
        }

    def restore(self, node):
        shutil.rmtree(node.net_dir)
        shutil.copytree(self.pristine, node.net_dir)

    def used_length(self, path, blocks_dir):
        """The length up to the last byte that is not preallocation (zeros on disk, or zeros
        under the key), once per file: the pristine files are the same every run."""
        cache = self.__dict__.setdefault("used", {})
        if path not in cache:
            data = open(path, "rb").read()
            key = read_xor_key(blocks_dir) if blocks_dir else bytes(8)
            pad = (key * (len(data) // len(key) + 1))[:len(data)]
            n = len(data)
            while n > 0 and (data[n - 1] == 0 or data[n - 1] == pad[n - 1]):
                n -= 1
            cache[path] = n or len(data)
        return cache[path]

    def pick(self, rng, node, rel):
        """A file of the kind and an offset in its bytes in use."""
        path = os.path.join(node.net_dir, rel)
        if os.path.isdir(path):
            files = [os.path.join(path, f) for f in sorted(os.listdir(path))
                     if f not in LOCKS and os.path.isfile(os.path.join(path, f)) and
                     os.path.getsize(os.path.join(path, f)) > 0]
            sizes = [self.used_length(f, None) for f in files]
            path = rng.choices(files, weights=sizes)[0]
            return path, rng.randrange(self.used_length(path, None))
        if rel.startswith("blocks/"):
            return path, rng.randrange(self.used_length(path, os.path.dirname(path)))
        return path, rng.randrange(os.path.getsize(path))

    def wait_up(self, node):
        """RPC up and start-up done (a node that stops during start-up: FailedCheck)."""
        def up():
            if node.process.poll() is not None:
                raise FailedCheck("exited")
            try:
                node.rpc("getblockcount")
                return True
            except (JSONRPCError, OSError, ValueError):
                return False  # warming up, or going down (an empty reply)
        wait_until(up, timeout=60, what="start-up")

    @staticmethod
    def wait_connected(node):
        """Start-up may still be connecting stored blocks: a store can come back a batch
        behind (RocksDB's recovery drops the write-ahead log's records after a damaged one,
        an earlier state, as a crash leaves), and the node connects the blocks again. The
        answers compared are those once every header with its block is connected (or after
        30 s: then the tip shows what is missing)."""
        def connected():
            info = node.rpc("getblockchaininfo")
            return info["blocks"] == info["headers"]
        try:
            wait_until(connected, timeout=30, what="stored blocks connected")
        except FailedCheck:
            pass

    def classify(self, node, kind, names, repair):
        node.start(CHECK + ["-connect=0"], wait=False)
        try:
            self.wait_up(node)
        except FailedCheck:
            rc = node.wait_exit(timeout=60)
            node.process = None
            err = node.stderr_text()
            if rc != 1:
                return "WRONG", "exit status %s: %s" % (rc, err.strip()[-300:])
            named = names is None or names in err
            if kind == "blocks/index" or kind == "chainstate":
                named = names in err or "Corruption" in err or "database" in err
            if kind == "rev":
                named = "rev00000.dat" in err or "undo" in err
            if not named or (repair and repair not in err):
                return "WRONG", "refused without naming %s / %s: %s" % (names, repair,
                                                                      err.strip()[-300:])
            return "refused", err.strip().splitlines()[0][:160]
        try:
            self.wait_connected(node)
            got = self.answers(node)
        except (JSONRPCError, OSError, FailedCheck) as e:
            # An error, never a wrong answer: the node must then stop naming the damage.
            rc = node.wait_exit(timeout=60)
            node.process = None
            err = node.stderr_text()
            if rc == 1 and (names in err or "Corruption" in err or repair and repair in err):
                return "refused", "while running: %s" % err.strip().splitlines()[0][:160]
            return "WRONG", "answer failed (%s), exit %s: %s" % (e, rc, err.strip()[-300:])
        node.stop()
        for k in ("tip", "utxo", "blocks"):
            if got[k] != self.want[k]:
                return "WRONG", "%s differs with no error" % k
        log = open(node.debug_log, errors="replace").read()
        for needle in REPORTS.get(kind, ()):
            if needle in log:
                return "reported", needle
        m = re.search(r"Imported mempool transactions from file: (\d+) succeeded, (\d+) failed",
                      log)
        if kind == "mempool.dat" and m and int(m.group(2)) > 0:
            return "reported", "%s of the transactions failed on import" % m.group(2)
        for k in ("mempool", "entries", "bans", "addrs", "fees"):
            if got[k] != self.want[k]:
                if k == "mempool" and set(got["mempool"]) < set(self.want["mempool"]):
                    return "reported", "mempool: %d of %d loaded" % (len(got["mempool"]),
                                                                   len(self.want["mempool"]))
                return "changed", "%s differ" % k
        return "harmless", ""

    def run_test(self):
        node = self.nodes[0]
        n = int(os.environ.get("DRILL_N", "3"))
        seed = int(os.environ.get("DRILL_SEED", "35"))
        rng = random.Random(seed)
        self.setup_chain(node)
        counts = {}
        wrong = []
        for kind, rel, names, repair in KINDS:
            c = counts.setdefault(kind, {"injected": 0, "refused": 0, "reported": 0,
                                         "harmless": 0, "changed": 0, "WRONG": 0})
            for i in range(n):
                self.restore(node)
                path, off = self.pick(rng, node, rel)
                with open(path, "r+b") as f:
                    f.seek(off)
                    b = f.read(1)[0]
                    f.seek(off)
                    f.write(bytes([b ^ rng.randrange(1, 256)]))
                what, why = self.classify(node, kind, names, repair)
                c["injected"] += 1
                c[what] += 1
                where = "%s@%d" % (os.path.relpath(path, node.net_dir), off)
                self.log("%-18s %-22s %-9s %s" % (kind, where, what, why))
                if what == "WRONG":
                    wrong.append((kind, where, why))
        lines = ["| file kind | injected | refused | reported | harmless | changed | wrong |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        for kind, _, _, _ in KINDS:
            c = counts[kind]
            lines.append("| %s | %d | %d | %d | %d | %d | %d |" % (
                kind, c["injected"], c["refused"], c["reported"], c["harmless"], c["changed"],
                c["WRONG"]))
        table = "\n".join(lines)
        print(table, flush=True)
        if os.environ.get("DRILL_REPORT"):
            with open(os.environ["DRILL_REPORT"], "w") as f:
                f.write(table + "\n")
                f.write(json.dumps({"seed": seed, "n": n, "wrong": wrong}) + "\n")
        assert_equal(wrong, [])
        # The pristine datadir still gives the pristine answers (the drill changed nothing
        # it did not put back).
        self.restore(node)
        node.start(CHECK + ["-connect=0"])
        wait_until(lambda: node.rpc("getbestblockhash") == self.want["tip"], timeout=60,
                   what="pristine tip")
        node.stop()
        # Core's VerifyDB lines for a sound chain, every block at level 4.
        log = open(node.debug_log, errors="replace").read()
        for line in ("Verifying last 110 blocks at level 4",
                     "Verification: checked last 110 blocks at level 4",
                     "Verification: no coin database inconsistencies (110 transactions)"):
            assert_equal(line in log, True)


if __name__ == "__main__":
    CorruptionDrill().main()
