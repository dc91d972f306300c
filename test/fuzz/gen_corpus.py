#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, test/fuzz/corpus/<target>/, from the repository's
test data (test/data, test/unit/*_vectors.h) and, when present, the shared vectors
(../shared/vectors or $BITNODE_SHARED/vectors). Each seed is named by the SHA-1 of its bytes, as
libFuzzer names its inputs, so the fuzzers' own finds sit beside them. The seeds are small
(the whole tree a few hundred KB): real transactions, blocks, PSBTs, addresses, config
files, block files and the node's small files, each with the selector byte its target reads.

    test/fuzz/gen_corpus.py [TARGET...]     (default: every target below)
"""
import glob
import hashlib
import json
import lzma
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("BITNODE_SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
CORPUS = os.path.join(ROOT, "test", "fuzz", "corpus")
REGTEST_MAGIC = bytes.fromhex("fabfb5da")


def write(target, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def regtest_blocks():
    """The regtest-small blocks, smallest first."""
    out = []
    for p in sorted(glob.glob(os.path.join(ROOT, "test/data/regtest-small/blocks/*.hex"))):
        out.append(bytes.fromhex(open(p).read().strip()))
    return sorted(out, key=len)


def regtest_txs():
    out = []
    for p in sorted(glob.glob(os.path.join(ROOT, "test/data/regtest-small/txs/*.json"))):
        out.append(bytes.fromhex(json.load(open(p))["hex"]))
    return sorted(out, key=len)


def shared_json(name):
    p = os.path.join(SHARED, "vectors", name)
    return json.load(open(p)) if os.path.exists(p) else []


def gen_deser():
    txs = regtest_txs()
    for tx in txs[:12]:
        write("deser", b"\x00" + tx)
    for t in shared_json("tx_valid.json")[::12]:
        if len(t) == 3 and len(t[1]) < 2000:
            write("deser", b"\x00" + bytes.fromhex(t[1]))
            write("deser", b"\x01" + bytes.fromhex(t[1]))
    for b in regtest_blocks()[:6]:
        write("deser", b"\x02" + b)
        write("deser", b"\x03" + b + b"\x00\x01")


def gen_psbt():
    text = open(os.path.join(ROOT, "test/unit/psbt_vectors.h")).read()
    import base64
    seen = 0
    for s in re.findall(r'"(cHNidP8[A-Za-z0-9+/=]*)"', text):
        try:
            raw = base64.b64decode(s)
        except Exception:
            continue
        if len(raw) > 3000:
            continue
        write("psbt", raw)
        if seen % 8 == 0:
            write("psbt", b"c" + s.encode())
        seen += 1


def gen_address():
    chains = {"main": 0, "test": 1, "regtest": 2, "signet": 3}
    for i, v in enumerate(shared_json("key_io_valid.json")):
        if i % 2 == 0:
            write("address", bytes([chains.get(v[2].get("chain", "main"), 0)]) + v[0].encode())
    for i, v in enumerate(shared_json("key_io_invalid.json")):
        if i % 4 == 0:
            write("address", b"\x00" + v[0].encode())


def gen_conf():
    seeds = [
        b"\x00# bitcoin.conf\nserver=1\nrpcuser=u\nrpcpassword=p\ndbcache=300\n",
        b"\x00regtest=1\n[regtest]\nrpcport=15001\nport=15002\nlisten=0\n[main]\nprune=550\n",
        b"\x06regtest=1\nincludeconf=inc.conf\n[regtest]\nincludeconf=inc.conf\n\x00debug=net\ndebug=rpc\nnodebuglogfile=1\n",
        b"\x01rpcconnect=127.0.0.1\nrpcport=8332\n[test]\nrpcwait=1\n",
        b"\x04unknownoption=1\n[nosuchchain]\nx=1\n  addnode = 1.2.3.4:8333  # comment\n",
        b"\x00nolisten=1\nnodnsseed=0\n-foo=1\nreindex=1\nchain=signet\nsignetchallenge=51\n",
        b"\x02datadir=/nonexistent\n",
    ]
    for s in seeds:
        write("conf", s)


def frame(block, magic=REGTEST_MAGIC):
    return magic + struct.pack("<I", len(block)) + block


def gen_blockfile():
    blocks = regtest_blocks()[:5]
    write("blockfile", b"\x00" + b"".join(frame(b) for b in blocks))
    # Padding between records, garbage, a bad size, a truncated last record.
    f = frame(blocks[0]) + b"\x00" * 64 + frame(blocks[1]) + b"garbage" + REGTEST_MAGIC + \
        b"\xff\xff\xff\xff" + frame(blocks[2])[:100]
    write("blockfile", b"\x00" + f)
    # Obfuscated with an 8-byte key, as the node's own blk files under -blocksxor.
    key = bytes(range(1, 9))
    plain = b"".join(frame(b) for b in blocks[:2])
    write("blockfile", b"\x02" + key + bytes(c ^ key[i % 8] for i, c in enumerate(plain)))


def compact(n):
    if n < 253:
        return bytes([n])
    if n <= 0xffff:
        return b"\xfd" + struct.pack("<H", n)
    return b"\xfe" + struct.pack("<I", n)


def sha256d(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def caddress(net, addr, port, services=9, time=1700000000):
    return struct.pack("<II", 220000 | (1 << 29), time) + compact(services) + bytes([net]) + \
        compact(len(addr)) + addr + struct.pack(">H", port)


def gen_files():
    # 0: peers.dat seeds are kept as they are in the corpus (a regtest node's file with new and
    # tried entries, and its first half): writing one needs the address manager's bucketing.
    # 1: anchors.dat, the two block-relay-only peers (an IPv4 and an IPv6 one), and none.
    for addrs in ([caddress(1, bytes([1, 2, 3, 4]), 18444), caddress(2, bytes(range(16)), 8333)], []):
        body = REGTEST_MAGIC + compact(len(addrs)) + b"".join(addrs)
        write("files", b"\x01" + body + sha256d(body))
    # 2: fee_estimates.dat as a node wrote it after 110 blocks, and cut short.
    p = os.path.join(ROOT, "test/data/fees/start110/fee_estimates.dat.xz")
    fees = lzma.open(p).read()
    write("files", b"\x02" + fees)
    write("files", b"\x02" + fees[:len(fees) // 3])
    # 3: banlist.json.
    write("files", b"\x03" + json.dumps({"banned_nets": [
        {"version": 1, "ban_created": 1700000000, "banned_until": 4000000000, "address": "1.2.3.0/24"},
        {"version": 1, "ban_created": 1700000000, "banned_until": 4000000000, "address": "2001:db8::/32"},
        {"version": 1, "ban_created": 1, "banned_until": 2, "address": "10.0.0.1/32"}]}).encode())
    # 4: settings.json.
    write("files", b"\x04" + json.dumps({"_warning_": "x", "dbcache": "300", "wallet": ["w"]}).encode())
    # 5: mempool.dat, version 1 (no key) and 2 (XORed), with transactions, a delta and an
    # unbroadcast txid.
    txs = regtest_txs()[:3]
    body = struct.pack("<Q", len(txs))
    for tx in txs:
        body += tx + struct.pack("<qq", 1700000000, 0)
    body += compact(1) + bytes(32) + struct.pack("<q", 1000) + compact(1) + bytes(range(32))
    write("files", b"\x05" + struct.pack("<Q", 1) + body)
    key = bytes(range(7, 15))
    write("files", b"\x05" + struct.pack("<Q", 2) + compact(8) + key +
          bytes(c ^ key[(i + 17) % 8] for i, c in enumerate(body)))


def gen_kv():
    # Programs of a seeded generator (the same as kv_replay's own), and a handful written out:
    # puts and a batch, then gets, a scan, an iterator from a key and a snapshot.
    s = 0x243f6a8885a308d3
    for i in range(12):
        out = bytearray()
        for _ in range(24 + 20 * i):
            s ^= (s << 13) & 0xffffffffffffffff
            s ^= s >> 7
            s ^= (s << 17) & 0xffffffffffffffff
            out.append(s & 0xff)
        write("kv", bytes(out))
    write("kv", bytes([0, 2, 1, 2, 5, 7, 0, 1, 3, 9, 1, 2, 1, 1, 2, 4, 0, 1, 3, 2, 0, 1, 3, 3, 1, 2,
                       1, 1, 5, 6, 1, 2, 2, 1, 4, 6, 4]))


GENERATORS = {
    "deser": gen_deser,
    "psbt": gen_psbt,
    "address": gen_address,
    "conf": gen_conf,
    "blockfile": gen_blockfile,
    "files": gen_files,
    "kv": gen_kv,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(GENERATORS):
        GENERATORS[name]()
