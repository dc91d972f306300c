#!/usr/bin/env python3
"""Bit rot is found, named and repaired; it never gives wrong answers or a crash.

The bundled regtest chain (1300 blocks) is imported and the node stopped. Then:

- chainstate: one byte flipped in the middle of the index block of a chainstate table
  (LevelDB's .ldb, RocksDB's .sst files; the footer gives the block's place). The node must not serve the
  coins that table holds: it stops (exit status 1) with LevelDB's "Corruption: ..." and the
  file named on stderr, and -reindex-chainstate named as the repair. A restart with
  -reindex-chainstate reaches the same tip and UTXO set hash. Then a byte flipped in a
  data block that start-up may not read: gettxoutsetinfo (which reads every coin) answers
  an error naming the table and LevelDB's cause, never a hash, and the node stops the same
  way; -reindex-chainstate repairs it.
  Skipped where the stores hold no table files: LMDB and BDB (no such layout), and RocksDB
  when a small store is still all in its log; kv_tests covers every backend.
- a stored block that no longer parses: a block's record in blk00000.dat keeps its header
  but its transaction count is made huge. -reindex-chainstate must stop cleanly (exit 1,
  it was a segmentation fault) with blk00000.dat and the block's position on stderr and
  -reindex named; a restart without options stops the same way (nothing was changed).
- a byte flipped inside a stored block's body (a transaction's version): the header still
  reads, the merkle root no longer matches. -reindex-chainstate must not take the block
  for invalid (the chain is not split by a bad disk): it stops with the block file named.
- -reindex then rebuilds from what is readable: it stops at the block before the damaged
  one, as Core's reindex does, and the node keeps running; with the file repaired, -reindex
  gives the whole chain back with the same UTXO set hash.
- the block index: a byte flipped in a blocks/index table's index block stops start-up with
  Core's "Error loading block database" and the table named; -reindex repairs it.
"""

import os
import struct

from framework import (BitnodeTestFramework, FailedCheck, JSONRPCError, assert_equal, assert_in,
                       assert_true, wait_until)

SRC = os.environ.get("BITNODE_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SMALL = os.path.join(SRC, "test", "data", "regtest-small")
BLK = os.path.join(SMALL, "blk00000.dat")
TIP_HEIGHT = 1300


def varint(data, pos):
    """LevelDB's varint64 at pos: (value, next position)."""
    v, shift = 0, 0
    while True:
        b = data[pos]
        pos += 1
        v |= (b & 0x7f) << shift
        if not b & 0x80:
            return v, pos
        shift += 7


def index_block(path):
    """(offset, size) of a table's index block, read from its footer: LevelDB's 48 bytes,
    RocksDB's 53 (a checksum type byte first)."""
    with open(path, "rb") as f:
        data = f.read()
    sst = path.endswith(".sst")
    footer = data[-53:] if sst else data[-48:]
    _, p = varint(footer, 1 if sst else 0)
    _, p = varint(footer, p)  # the metaindex handle
    off, p = varint(footer, p)
    size, _ = varint(footer, p)
    return off, size


def xor_key(path):
    """The 8-byte key a blk file is stored XORed with (blocks/xor.dat, Core's -blocksxor), or
    zeros where there is none."""
    f = os.path.join(os.path.dirname(path), "xor.dat")
    return open(f, "rb").read()[:8] if os.path.exists(f) else bytes(8)


def flip(path, pos, value=None):
    """Flips the byte at pos of path (value: the byte it must read as, under a blk file's
    XOR key, instead)."""
    key = xor_key(path) if os.path.basename(path).startswith("blk") else bytes(8)
    with open(path, "r+b") as f:
        f.seek(pos)
        b = f.read(1)[0]
        f.seek(pos)
        f.write(bytes([(value ^ key[pos % 8]) if value is not None else b ^ 0x5a]))


def block_records(path):
    """[(offset of the block's bytes, size)] for each record of a blk file."""
    out = []
    key = xor_key(path)
    with open(path, "rb") as f:
        data = bytes(b ^ key[i % 8] for i, b in enumerate(f.read()))
    p = 0
    while p + 8 <= len(data):
        magic, size = struct.unpack_from("<4sI", data, p)
        if magic == b"\0\0\0\0" or size == 0:
            break
        out.append((p + 8, size))
        p += 8 + size
    return out


class CorruptionTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def stopped_with(self, node, args, *needles):
        """Starts node with args and expects it to stop by itself, status 1, saying needles."""
        node.start(args, wait=False)
        rc = node.wait_exit(timeout=120)
        node.process = None
        err = node.stderr_text()
        self.log("stderr: %s" % err.strip().replace("\n", " | "))
        assert_equal(rc, 1)
        for n in needles:
            assert_in(n, err)
        return err

    def run_test(self):
        node = self.nodes[0]
        node.start(["-loadblock=" + BLK])
        wait_until(lambda: node.rpc("getblockcount") == TIP_HEIGHT, timeout=300,
                   what="height %d" % TIP_HEIGHT)
        tip = node.rpc("getbestblockhash")
        want = node.rpc("gettxoutsetinfo")["hash_serialized_3"]
        node.stop()

        chainstate = os.path.join(node.net_dir, "chainstate")
        tables = sorted((f for f in os.listdir(chainstate) if f.endswith((".ldb", ".sst"))),
                        key=lambda f: os.path.getsize(os.path.join(chainstate, f)))
        if tables:
            self.log("a flipped byte in the index block of chainstate/%s" % tables[-1])
            path = os.path.join(chainstate, tables[-1])
            off, size = index_block(path)
            flip(path, off + size // 2)
            self.stopped_with(node, [], "Corruption", tables[-1], "-reindex-chainstate")
            log = open(node.debug_log, errors="replace").read()
            assert_in("Corruption", log)

            self.log("-reindex-chainstate repairs it: same tip and UTXO set hash")
            node.start(["-reindex-chainstate"])
            wait_until(lambda: node.rpc("getblockcount") == TIP_HEIGHT, timeout=300,
                       what="height %d" % TIP_HEIGHT)
            assert_equal(node.rpc("getbestblockhash"), tip)
            assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], want)
            node.stop()

            self.log("a flipped byte in a data block, found while running: a clean stop")
            tables = [f for f in os.listdir(chainstate) if f.endswith((".ldb", ".sst"))]
            table = max(tables, key=lambda f: os.path.getsize(os.path.join(chainstate, f)))
            path = os.path.join(chainstate, table)
            flip(path, os.path.getsize(path) // 3)
            # Start-up verification (-checklevel=3 disconnects the last blocks, reading their
            # coins) may meet it: then Core's "Error loading databases" with the file named.
            node.start([], wait=False)
            try:
                node.wait_for_rpc()
                node.stop()  # not met at start-up (the scan below meets it)
            except FailedCheck:
                node.wait_exit()
                node.process = None
                err = node.stderr_text()
                self.log("met at start-up: %s" % err.strip().replace("\n", " | "))
                for n in ("Error loading databases", "Corruption", table, "-reindex-chainstate"):
                    assert_in(n, err)
            # -checklevel=2: start-up verification reads no coins, so the damage is met by
            # the scan (where start-up meets it anyway, it stops there the same way).
            node.start(["-checklevel=2"], wait=False)
            try:
                node.wait_for_rpc()
                try:
                    got = node.rpc("gettxoutsetinfo")
                    raise AssertionError("a damaged chainstate answered %s" % got)
                except JSONRPCError as e:
                    # Core's "Unable to read UTXO set", with the store's own cause: the
                    # damaged table named (the RPC layer passes the chainstate's last error).
                    self.log("gettxoutsetinfo: %s" % e)
                    for n in ("Unable to read UTXO set", "Corruption", table):
                        assert_in(n, str(e))
                except OSError as e:  # the node already gone
                    self.log("gettxoutsetinfo: %s" % e)
                rc = node.wait_exit(timeout=60)
            except FailedCheck:
                rc = node.wait_exit(timeout=60)  # found at start-up already
            node.process = None
            err = node.stderr_text()
            self.log("stderr: %s" % err.strip().replace("\n", " | "))
            assert_equal(rc, 1)
            for n in ("Corruption", table, "-reindex-chainstate"):
                assert_in(n, err)
            node.start(["-reindex-chainstate"])
            wait_until(lambda: node.rpc("getblockcount") == TIP_HEIGHT, timeout=300,
                       what="height %d" % TIP_HEIGHT)
            assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], want)
            node.stop()
        else:
            self.log("no LevelDB or RocksDB tables (LMDB, BDB): the chainstate case is skipped "
                     "(kv_tests' test_bitrot_is_error covers them)")

        blk = os.path.join(node.net_dir, "blocks", "blk00000.dat")
        recs = block_records(blk)
        assert_true(len(recs) >= TIP_HEIGHT, "the node's blk file holds the chain")
        saved = open(blk, "rb").read()

        self.log("a stored block that does not parse: -reindex-chainstate stops cleanly")
        pos, size = recs[1000]
        flip(blk, pos + 80, 0xff)  # transaction count: 0xff, an 8-byte count follows
        flip(blk, pos + 88, 0x7f)  # ... a huge one
        self.stopped_with(node, ["-reindex-chainstate"], "blk00000.dat", "-reindex")
        log = open(node.debug_log, errors="replace").read()
        assert_true("Segmentation" not in log, "no crash")

        self.log("a restart without options stops the same way, the datadir unchanged")
        self.stopped_with(node, [], "blk00000.dat at position %d" % pos, "-reindex")

        self.log("a flipped byte in a stored block's body: not taken for an invalid block")
        with open(blk, "wb") as f:
            f.write(saved)
        pos, size = recs[1100]
        flip(blk, pos + 82)  # the first transaction's version: its txid, not the header
        self.stopped_with(node, ["-reindex-chainstate"], "blk00000.dat at position %d" % pos,
                          "its body does not match its header (bad-txnmrklroot)", "-reindex")

        self.log("-reindex rebuilds from what is readable, and runs")
        node.start(["-reindex"])
        wait_until(lambda: node.rpc("getblockcount") == 1099, timeout=300, what="height 1099")
        tips = node.rpc("getchaintips")
        assert_true(all(t["status"] != "invalid" for t in tips), "no block marked invalid")
        node.stop()

        self.log("the file repaired, -reindex gives the chain back")
        with open(blk, "wb") as f:
            f.write(saved)
        node.start(["-reindex"])
        wait_until(lambda: node.rpc("getblockcount") == TIP_HEIGHT, timeout=300,
                   what="height %d" % TIP_HEIGHT)
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], want)
        node.stop()

        index = os.path.join(node.net_dir, "blocks", "index")
        itables = [f for f in os.listdir(index) if f.endswith((".ldb", ".sst"))]
        if itables:
            table = max(itables, key=lambda f: os.path.getsize(os.path.join(index, f)))
            self.log("a flipped byte in the block index's blocks/index/%s" % table)
            path = os.path.join(index, table)
            off, size = index_block(path)
            flip(path, off + size // 2)
            self.stopped_with(node, [], "Error loading block database", "Corruption", table,
                              "-reindex")
            self.log("-reindex repairs it")
            node.start(["-reindex"])
            wait_until(lambda: node.rpc("getblockcount") == TIP_HEIGHT, timeout=300,
                       what="height %d" % TIP_HEIGHT)
            assert_equal(node.rpc("getbestblockhash"), tip)
            node.stop()


if __name__ == "__main__":
    CorruptionTest().main()
