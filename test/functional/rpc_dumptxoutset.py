#!/usr/bin/env python3
"""dumptxoutset writes the UTXO set in Bitcoin Core's snapshot format.

A node imports the repository's regtest-small chain (made by Core) and dumps its UTXO set:
- the answer's fields match gettxoutsetinfo at the tip (coins, hash_serialized_3), the tip
  and its chain transaction count;
- the file is byte for byte the one Bitcoin Core v31.99 writes for that chain (its SHA-256,
  taken from Core's dump of the same chain), and decodes as the format says: header, one
  group per transaction, coins whose amounts add up to gettxoutsetinfo's total;
- relative paths are under the chain's data directory, absolute ones are kept; nothing named
  ".incomplete" stays behind;
- rollback to an earlier block (by height or hash, in a temporary store on disk or in
  memory): at each height Core's expected.json gives, the snapshot holds the set Core's
  gettxoutsetinfo reported there (coins, hash_serialized_3, total amount, transactions), at
  700 byte for byte Core's file; the chain itself is untouched and the temporary store gone;
- Core's errors: the file exists, a bad snapshot type, a type given with the rollback option,
  the options object given together with one of its members, a height past the tip, a
  directory that cannot be written; type "rollback" without a block rolls back to the chain's
  highest assumeutxo height (299 on regtest).
"""
import hashlib
import json
import os
import struct

from blocktools import read_compact_size
from framework import (BitnodeTestFramework, assert_equal, assert_raises_rpc_error,
                       assert_true, wait_until)

SMALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "regtest-small")
# SHA-256 of the files Bitcoin Core v31.99 writes for regtest-small with `dumptxoutset utxo.dat
# latest` at its tip (height 1300) and with `-named dumptxoutset r.dat rollback=700`.
CORE_SNAPSHOT_SHA256 = "563f5be44e0c5a5dbfa5a32cbf956e2e993a38472f5724d28e3a7b2162e24032"
CORE_ROLLBACK_700_SHA256 = "db76335630692e5004a3a9214f67530a088b32de008656323f9d9af2bbdc5837"


def read_varint(b, pos):
    """Core's VARINT (base 128, most significant group first, each continuation +1)."""
    n = 0
    while True:
        c = b[pos]
        pos += 1
        n = (n << 7) | (c & 0x7f)
        if c & 0x80:
            n += 1
        else:
            return n, pos

def decompress_amount(x):
    """Core's DecompressAmount."""
    if x == 0:
        return 0
    x -= 1
    e = x % 10
    x //= 10
    if e < 9:
        d = (x % 9) + 1
        x //= 9
        n = x * 10 + d
    else:
        n = x + 1
    return n * 10 ** e


def skip_script(b, pos):
    kind, pos = read_varint(b, pos)
    if kind in (0, 1):
        return pos + 20
    if kind in (2, 3, 4, 5):
        return pos + 32
    return pos + kind - 6


def decode_snapshot(b):
    assert_equal(b[:5], b"utxo\xff")
    version, = struct.unpack_from("<H", b, 5)
    magic = b[7:11]
    base = b[11:43][::-1].hex()
    count, = struct.unpack_from("<Q", b, 43)
    pos, coins, total, groups = 51, 0, 0, 0
    while pos < len(b):
        pos += 32
        n, pos = read_compact_size(b, pos)
        groups += 1
        for _ in range(n):
            _, pos = read_compact_size(b, pos)   # output index
            _, pos = read_varint(b, pos)    # height * 2 + coinbase
            amount, pos = read_varint(b, pos)
            total += decompress_amount(amount)
            pos = skip_script(b, pos)
            coins += 1
    assert_equal(pos, len(b))
    return {"version": version, "magic": magic.hex(), "base": base, "count": count,
            "coins": coins, "total": total, "groups": groups}


class DumpTxOutSetTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        node.start(["-loadblock=" + os.path.join(SMALL, "blk00000.dat"), "-maxtipage=2000000000"])
        wait_until(lambda: node.rpc("getblockcount") == 1300, timeout=120, what="imported")
        info = node.rpc("gettxoutsetinfo")
        tip = node.rpc("getbestblockhash")

        self.log("latest: the answer agrees with gettxoutsetinfo and the chain")
        r = node.rpc("dumptxoutset", "utxo.dat", "latest")
        path = os.path.join(node.net_dir, "utxo.dat")
        assert_equal(r["path"], path)
        assert_equal(r["coins_written"], info["txouts"])
        assert_equal(r["txoutset_hash"], info["hash_serialized_3"])
        assert_equal(r["base_hash"], tip)
        assert_equal(r["base_height"], 1300)
        with open(os.path.join(SMALL, "expected.json")) as f:
            expected = json.load(f)
        assert_equal(r["nchaintx"], expected["getchaintxstats_tip"]["txcount"])
        assert_true(not os.path.exists(path + ".incomplete"), "no .incomplete left")

        self.log("the file is Core's, byte for byte, and decodes as the format says")
        data = open(path, "rb").read()
        assert_equal(hashlib.sha256(data).hexdigest(), CORE_SNAPSHOT_SHA256)
        d = decode_snapshot(data)
        assert_equal(d["version"], 2)
        assert_equal(d["magic"], "fabfb5da")
        assert_equal(d["base"], tip)
        assert_equal(d["count"], info["txouts"])
        assert_equal(d["coins"], info["txouts"])
        assert_equal(d["groups"], info["transactions"])
        assert_equal(d["total"], round(float(info["total_amount"]) * 100_000_000))

        self.log("an absolute path is kept; named parameters")
        other = os.path.join(self.tmpdir, "abs.dat")
        r2 = node.rpc("dumptxoutset", path=other, type="latest")
        assert_equal(r2["path"], other)
        assert_equal(open(other, "rb").read(), data)

        self.log("Core's errors")
        assert_raises_rpc_error(-8, "%s already exists. If you are sure this is what you want, "
                                "move it out of the way first" % path,
                                node.rpc, "dumptxoutset", "utxo.dat", "latest")
        assert_raises_rpc_error(-8, 'Invalid snapshot type "foo" specified. Please specify '
                                '"rollback" or "latest"', node.rpc, "dumptxoutset", "x.dat", "foo")
        assert_raises_rpc_error(-8, 'Invalid snapshot type "" specified. Please specify '
                                '"rollback" or "latest"', node.rpc, "dumptxoutset", "x.dat")
        assert_raises_rpc_error(-8, 'Invalid snapshot type "latest" specified with rollback '
                                'option', node.rpc, "dumptxoutset", path="x.dat", type="latest",
                                rollback=5)
        assert_raises_rpc_error(-8, "Parameter options conflicts with parameter rollback",
                                node.rpc, "dumptxoutset", path="x.dat", options={"rollback": 5},
                                rollback=6)
        missing = os.path.join(self.tmpdir, "no", "such", "dir", "x.dat")
        assert_raises_rpc_error(-8, "Couldn't open file %s.incomplete for writing." % missing,
                                node.rpc, "dumptxoutset", missing, "latest")
        assert_raises_rpc_error(-8, "Target block height 2000 after current tip 1300", node.rpc,
                                "dumptxoutset", path="x.dat", rollback=2000)
        assert_true(not os.path.exists(os.path.join(node.net_dir, "x.dat")), "nothing written")
        r = node.rpc("dumptxoutset", "r299.dat", "rollback")
        assert_equal(r["base_height"], 299)  # the highest of regtest's assumeutxo heights

        self.log("rollback: the set at each height Core reported, the chain untouched")
        for height, want in sorted(expected["gettxoutsetinfo_at_height"].items(),
                                   key=lambda kv: int(kv[0])):
            want = want["hash_serialized_3"]
            name = "r%s.dat" % height
            by = int(height) if int(height) % 200 else want["bestblock"]  # heights and hashes
            r = node.rpc("dumptxoutset", path=name, rollback=by,
                         in_memory=int(height) in (150, 900))
            assert_equal(r["base_height"], int(height))
            assert_equal(r["base_hash"], want["bestblock"])
            assert_equal(r["coins_written"], want["txouts"])
            assert_equal(r["txoutset_hash"], want["hash_serialized_3"])
            data = open(os.path.join(node.net_dir, name), "rb").read()
            d = decode_snapshot(data)
            assert_equal((d["base"], d["coins"], d["groups"]),
                         (want["bestblock"], want["txouts"], want["transactions"]))
            assert_equal(d["total"], round(float(want["total_amount"]) * 100_000_000))
            if height == "700":
                assert_equal(hashlib.sha256(data).hexdigest(), CORE_ROLLBACK_700_SHA256)
        leftovers = [n for n in os.listdir(node.net_dir) if n.startswith("temp_utxo")]
        assert_equal(leftovers, [])
        assert_equal(node.rpc("getblockcount"), 1300)
        assert_equal(node.rpc("gettxoutsetinfo")["hash_serialized_3"], info["hash_serialized_3"])


if __name__ == "__main__":
    DumpTxOutSetTest().main()
