#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, test/fuzz/corpus/<target>/, from the repository's
test data (test/data, test/unit/*_vectors.h) and, when present, the shared vectors
(../shared/vectors or $BITNODE_SHARED/vectors). Each seed is named by the SHA-1 of its bytes, as
libFuzzer names its inputs, so the fuzzers' own finds sit beside them. The seeds are small
(the whole tree a few hundred KB): real transactions, blocks, PSBTs, addresses, config
files, block files and the node's small files, each with the selector byte its target reads.

    test/fuzz/gen_corpus.py [TARGET...]     (default: every target below)
    test/fuzz/gen_corpus.py --big DIR [TARGET...]

Seeds over 16 KB (a whole fee_estimates.dat) are not kept in the repository: with --big, only
they are written, under DIR/<target>/; test/fuzz/replay_corpus.sh does that at test time.
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


BIG = 16384
BIG_DIR = None  # --big DIR: write only the seeds over BIG bytes, there (at test time)


def write(target, data):
    """A seed over BIG bytes is not kept in the repository: the corpus replay writes it at
    test time (--big)."""
    if (len(data) > BIG) != (BIG_DIR is not None):
        return
    d = os.path.join(BIG_DIR or CORPUS, target)
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


P2P_COMMANDS = [
    "version", "verack", "ping", "pong", "getheaders", "headers", "getblocks", "block", "getdata",
    "inv", "notfound", "tx", "getaddr", "addr", "addrv2", "sendaddrv2", "sendheaders", "sendcmpct",
    "cmpctblock", "getblocktxn", "blocktxn", "feefilter", "mempool", "filterload", "filteradd",
    "filterclear", "merkleblock", "wtxidrelay", "sendtxrcncl", "getcfilters", "getcfheaders",
    "getcfcheckpt", "reqtxrcncl", "unknown!"]


def p2p_msg(cmd, payload=b""):
    return bytes([P2P_COMMANDS.index(cmd)]) + struct.pack("<H", len(payload)) + payload


def gen_p2p():
    blocks = [bytes.fromhex(open(p).read().strip()) for p in
              sorted(glob.glob(os.path.join(ROOT, "test/data/regtest-small/blocks/*.hex")))]
    genesis = bytes.fromhex("06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f")
    locator = struct.pack("<I", 70016) + compact(1) + genesis + bytes(32)
    ping = p2p_msg("ping", bytes(range(8)))
    # After the handshake: ping, getheaders, getaddr, mempool, feefilter, sendcmpct.
    write("p2p", b"\x01" + ping + p2p_msg("getheaders", locator) + p2p_msg("getaddr") +
          p2p_msg("mempool") + p2p_msg("feefilter", struct.pack("<q", 1000)) +
          p2p_msg("sendcmpct", b"\x01" + struct.pack("<Q", 2)))
    # The chain's first headers, then its first block, then a getdata for it.
    first = [b for b in blocks if b[4:36] == genesis]
    if first:
        write("p2p", b"\x01" + p2p_msg("headers", compact(1) + first[0][:80] + b"\x00") +
              p2p_msg("block", first[0]))
    # Transactions, and an inv/getdata of them (MSG_WTX), with the relay permissions.
    txs = regtest_txs()[:2]
    write("p2p", b"\x03" + b"".join(p2p_msg("tx", t) for t in txs if len(t) < 60000) +
          p2p_msg("inv", compact(1) + struct.pack("<I", 5) + bytes(32)) +
          p2p_msg("getdata", compact(1) + struct.pack("<I", 0x40000001) + bytes(32)))
    # Addresses, v1 and v2.
    addr = compact(1) + struct.pack("<IQ", 1700000000, 9) + bytes(10) + b"\xff\xff" + \
        bytes([8, 8, 8, 8]) + struct.pack(">H", 8333)
    addrv2 = compact(1) + struct.pack("<I", 1700000000) + compact(9) + b"\x01\x04" + \
        bytes([9, 9, 9, 9]) + struct.pack(">H", 8333)
    write("p2p", b"\x01" + p2p_msg("addr", addr) + p2p_msg("addrv2", addrv2))
    # A bloom filter, an element, and a clear.
    write("p2p", b"\x03" + p2p_msg("filterload", compact(4) + bytes(4) + struct.pack("<II", 5, 0) +
                                    b"\x01") + p2p_msg("filteradd", compact(3) + b"abc") +
          p2p_msg("filterclear"))
    # Before the handshake, and raw framing (a good version frame, then garbage).
    write("p2p", b"\x00" + ping + p2p_msg("verack"))
    write("p2p", b"\x04" + REGTEST_MAGIC + b"version\x00\x00\x00\x00\x00" + bytes(8) +
          b"garbage")


def gen_rpc():
    tx = regtest_txs()[0].hex()
    text = open(os.path.join(ROOT, "test/unit/psbt_vectors.h")).read()
    psbts = [x for x in re.findall(r'"(cHNidP8[A-Za-z0-9+/=]*)"', text) if len(x) < 1500][:3]
    pub = "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
    calls = [
        ("help", []), ("help", ["decodepsbt"]), ("uptime", []), ("getrpcinfo", []),
        ("decoderawtransaction", [tx]), ("decoderawtransaction", [tx, True]),
        ("decodescript", ["76a914000000000000000000000000000000000000000088ac"]),
        ("createrawtransaction", [[{"txid": "00" * 32, "vout": 1}], [{"bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw": 1.5}]]),
        ("createpsbt", [[{"txid": "11" * 32, "vout": 0, "sequence": 1}], [{"data": "cafe"}], 0, True]),
        ("converttopsbt", [tx, True]),
        ("validateaddress", ["bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw"]),
        ("createmultisig", [1, [pub], "bech32"]),
        ("getdescriptorinfo", ["wpkh(" + pub + ")"]),
        ("deriveaddresses", ["wpkh(" + pub + ")"]),
        ("verifymessage", ["mpXwg4jMtRhuSpVq4xS3HFHmCmWp9NyGKt", "H" + "A" * 87, "msg"]),
        ("testmempoolaccept", [[tx]]), ("sendrawtransaction", [tx]),
        ("getrawtransaction", ["00" * 32]),
    ]
    for b in psbts:
        calls += [("decodepsbt", [b]), ("analyzepsbt", [b]), ("finalizepsbt", [b]),
                  ("combinepsbt", [[b, b]])]
    for i, (m, params) in enumerate(calls):
        if i % 3 == 0:
            req = {"jsonrpc": "2.0", "id": i, "method": m, "params": params}
        else:
            req = {"id": i, "method": m, "params": params}
        write("rpc", json.dumps(req).encode())
    write("rpc", json.dumps([{"id": 1, "method": "help"}, {"method": "decodescript", "params": {"hexstring": "51"}},
                             {"jsonrpc": "2.0", "method": "uptime"}, 3]).encode())


def gen_kvstore():
    # No damage (plain and paranoid open), then one to six XOR patches at seeded offsets.
    write("kvstore", b"\x00")
    write("kvstore", b"\x01")
    s = 0x9e3779b97f4a7c15
    for i in range(10):
        out = bytearray([i & 1])
        for _ in range(1 + i % 6):
            s = (s * 6364136223846793005 + 1442695040888963407) & 0xffffffffffffffff
            out += struct.pack("<I", s >> 32) + bytes([1 << (s >> 20) % 8])
        write("kvstore", bytes(out))


def chunks(*items):
    return b"".join(struct.pack("<H", len(x)) + x for x in items)


def gen_script():
    # flags (4 bytes), selector, then scriptSig, scriptPubKey, witness items.
    all_flags = struct.pack("<I", 0x1ffff)
    p2sh_wit = struct.pack("<I", 1 | 2048)
    write("script", all_flags + b"\x00" + chunks(b"\x51", b"\x51\x87"))
    write("script", all_flags + b"\x08" + chunks(b"\x00\x51", b"\xae"))
    write("script", all_flags + b"\x40" + chunks(b"", b"", b"\x01", b"\x51\x51\x93\x52\x87", b""))
    write("script", p2sh_wit + b"\x04" + chunks(b"", b"\x00\x14" + bytes(20), bytes(71), b"\x02" + bytes(32)))
    write("script", all_flags + b"\x30" + chunks(b"", b"\x04\x10\x00\x40\x00\xb2\x75\x51"))
    write("script", all_flags + b"\x02" + chunks(b"", b"\x63\x67\x68\x51"))
    # Real scriptSigs and witnesses of the regtest chain's transactions, with a P2WPKH,
    # a P2WSH and a P2TR output as the scriptPubKey.
    for i, p in enumerate(sorted(glob.glob(os.path.join(ROOT, "test/data/regtest-small/txs/*.json")))[:6]):
        vin = json.load(open(p))["vin"][0]
        sig = bytes.fromhex(vin.get("scriptSig", {}).get("hex", ""))
        wit = [bytes.fromhex(w) for w in vin.get("txinwitness", [])]
        spk = [b"\x00\x14" + bytes(20), b"\x00\x20" + bytes(32), b"\x51\x20" + bytes(32)][i % 3]
        write("script", all_flags + bytes([i * 5 & 0x3f]) + chunks(sig, spk, *wit))


def frame_msg(cmd, payload):
    return REGTEST_MAGIC + cmd.encode().ljust(12, b"\x00") + struct.pack("<I", len(payload)) + \
        sha256d(payload)[:4] + payload


def gen_net():
    blocks = regtest_blocks()
    txs = regtest_txs()[:2]
    version = struct.pack("<iQq", 70016, 9, 1700000000) + bytes(26) + bytes(26) + \
        struct.pack("<Q", 7) + b"\x06/fuzz/" + struct.pack("<i", 0) + b"\x01"
    write("net", b"\x00" + frame_msg("version", version) + frame_msg("verack", b"") +
          frame_msg("ping", bytes(8)) + frame_msg("block", blocks[0]))
    write("net", b"\x00" + frame_msg("tx", txs[0]) + frame_msg("inv", compact(1) + struct.pack("<I", 2) + bytes(32)))
    write("net", b"\x01" + version)
    write("net", b"\x01" + compact(2) + blocks[0][:80] + b"\x00" + blocks[1][:80] + b"\x00")
    write("net", b"\x02" + b"".join(b[:80] for b in blocks[:4]))
    write("net", b"\x03" + b"\x05\x00\x05\x00\x00\x01\x01\x02\x03\x04\x20\x8d")


def gen_http():
    reqs = [
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic dTpw\r\nContent-Type: application/json\r\n"
        b"Content-Length: 40\r\n\r\n{\"method\":\"getblockcount\",\"params\":[]}",
        b"GET /rest/chaininfo.json HTTP/1.1\r\nHost: x\r\n\r\nGET /rest/mempool/info.json HTTP/1.0\r\n\r\n",
        b"POST /wallet/w HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        b"POST / HTTP/1.0\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nabc",
    ]
    for i, r in enumerate(reqs):
        write("http", bytes([i * 13]) + r)


def gen_descriptor():
    text = open(os.path.join(ROOT, "test/unit/descriptor_vectors.h")).read()
    found = re.findall(r'^    \{"([^"]+)",', text, re.M)
    for i, d in enumerate(found):
        if i % 3 == 0:
            write("descriptor", bytes([i & 3]) + d.encode())


GENERATORS = {
    "deser": gen_deser,
    "psbt": gen_psbt,
    "address": gen_address,
    "conf": gen_conf,
    "blockfile": gen_blockfile,
    "files": gen_files,
    "kv": gen_kv,
    "p2p": gen_p2p,
    "rpc": gen_rpc,
    "kvstore": gen_kvstore,
    "script": gen_script,
    "net": gen_net,
    "http": gen_http,
    "descriptor": gen_descriptor,
}

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--big"]:
        BIG_DIR = args[1]
        args = args[2:]
    for name in args or sorted(GENERATORS):
        GENERATORS[name]()
