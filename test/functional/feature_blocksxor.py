#!/usr/bin/env python3
"""Block files under Core's XOR key (-blocksxor; doc/files.md, "The XOR key"):

- a new blocks directory gets blocks/xor.dat, 8 random bytes (Core's log line names it), and
  every byte of blk*.dat and rev*.dat is XORed with it, cycled by the file offset;
- the blocks read back after a restart (getblock, verifychain with the undo data) and after
  -reindex, which reads the files through the key; bitnode-util parse-blocks too;
- -blocksxor=0 over a stored key that is not zeros stops start-up with Core's message;
- -blocksxor=0 on a new blocks directory writes a key of zeros and plain files, whose records
  are the blocks' bytes.
"""

import os
import subprocess

from blocktools import REGTEST_MAGIC, read_block_file, unxor, write_block_file
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until

ADDR = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
BLOCKS = 150


class BlocksXorTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 2
        self.extra_args = [["-fastprune"], ["-blocksxor=0"]]

    def blocks_dir(self, node):
        return os.path.join(node.net_dir, "blocks")

    def key(self, node):
        with open(os.path.join(self.blocks_dir(node), "xor.dat"), "rb") as f:
            return f.read()

    def check_blocks(self, node, key):
        """The blk files, turned back with key, hold the blocks getblock returns, in order;
        they are written to one plain file, whose path is returned."""
        raws, n = [], 0
        while True:
            name = os.path.join(self.blocks_dir(node), "blk%05d.dat" % n)
            if not os.path.exists(name):
                break
            with open(name, "rb") as f:
                data = unxor(f.read(), key)
            path = os.path.join(node.datadir, "plain%d.dat" % n)
            with open(path, "wb") as f:
                f.write(data)
            raws += read_block_file(path)
            n += 1
        assert_equal(len(raws), node.rpc("getblockcount") + 1)
        for h in list(range(0, len(raws), 7)) + [len(raws) - 1]:
            assert_equal(node.rpc("getblock", node.rpc("getblockhash", h), 0), raws[h].hex())
        path = os.path.join(node.datadir, "plain.dat")
        write_block_file(path, raws)
        return path

    def run_test(self):
        a, b = self.nodes
        self.log("a new blocks directory: xor.dat holds a random key, logged as Core's")
        key = self.key(a)
        assert_equal(len(key), 8)
        assert_true(key != bytes(8), "a random key")
        with open(a.debug_log) as f:
            assert_in("Using obfuscation key for blocksdir *.dat files (%s): '%s'"
                      % (self.blocks_dir(a), key.hex()), f.read())
        a.rpc("generatetoaddress", BLOCKS, ADDR)
        tip = a.rpc("getbestblockhash")
        with open(os.path.join(self.blocks_dir(a), "blk00000.dat"), "rb") as f:
            head = f.read(8)
        assert_true(head[:4] != REGTEST_MAGIC, "the file is not plain")
        assert_equal(unxor(head[:4], key), REGTEST_MAGIC)
        rev = os.path.join(self.blocks_dir(a), "rev00000.dat")
        with open(rev, "rb") as f:
            assert_equal(unxor(f.read(4), key), REGTEST_MAGIC)

        self.log("read back after a restart: getblock, verifychain with the undo data")
        a.stop()
        a.start()
        assert_equal(a.rpc("getbestblockhash"), tip)
        plain = self.check_blocks(a, key)
        assert_equal(a.rpc("verifychain", 4, 0), True)

        self.log("bitnode-util parse-blocks reads a blk file through the xor.dat beside it")
        util = os.path.join(os.path.dirname(a.bitnoded), "bitnode-util")
        r2 = subprocess.run([util, "parse-blocks", os.path.join(self.blocks_dir(a),
                                                                "blk00000.dat")],
                            capture_output=True, text=True, timeout=60)
        assert_true(r2.returncode == 0, r2.stdout + r2.stderr)
        assert_in("records", r2.stdout)

        self.log("-reindex reads the files through the key")
        a.stop()
        a.start(["-reindex"])
        wait_until(lambda: a.rpc("getbestblockhash") == tip, timeout=120, what="the reindex")
        assert_equal(self.key(a), key)
        assert_equal(a.rpc("verifychain", 4, 0), True)

        self.log("-blocksxor=0 over the stored key: Core's refusal")
        a.stop()
        a.assert_start_fails(
            ["-blocksxor=0"],
            "Error: Failed to initialize ChainstateManager: The blocksdir XOR-key can not be "
            "disabled when a random key was already stored! Stored key: '%s', stored path: "
            "'%s'." % (key.hex(), os.path.join(self.blocks_dir(a), "xor.dat")))
        a.start()
        assert_equal(a.rpc("getbestblockhash"), tip)

        self.log("-blocksxor=0 on a new blocks directory: a key of zeros, plain files")
        assert_equal(self.key(b), bytes(8))
        b.rpc("generatetoaddress", 10, ADDR)
        self.check_blocks(b, bytes(8))
        assert_equal(read_block_file(os.path.join(self.blocks_dir(b), "blk00000.dat"))[10],
                     bytes.fromhex(b.rpc("getblock", b.rpc("getblockhash", 10), 0)))
        b.stop()
        b.start(["-blocksxor=1"])  # an existing key of zeros stays
        assert_equal(self.key(b), bytes(8))

        self.log("-loadblock of a plain file into an XORed blocks directory")
        b.stop()
        os.remove(os.path.join(self.blocks_dir(b), "xor.dat"))
        b.start(["-blocksxor=1"])  # files there already: zeros, as Core's
        assert_equal(self.key(b), bytes(8))
        b.stop()
        c = b
        for name in os.listdir(c.net_dir):
            if name in ("blocks", "chainstate"):
                subprocess.run(["rm", "-rf", os.path.join(c.net_dir, name)], check=True)
        c.start(["-blocksxor=1", "-loadblock=" + plain])
        wait_until(lambda: c.rpc("getbestblockhash") == tip, timeout=120, what="the import")
        ckey = self.key(c)
        assert_true(ckey != bytes(8), "a new blocks directory gets a random key")
        self.check_blocks(c, ckey)


if __name__ == "__main__":
    BlocksXorTest().main()
