#!/usr/bin/env python3
"""BIP37 bloom filters with -peerbloomfilters, as Core serves them.

- A node with -peerbloomfilters offers NODE_BLOOM (version, getnetworkinfo's "BLOOM"); one
  without does not, disconnects a peer sending filterload, and offers NODE_BLOOM only to a
  peer with the bloomfilter permission.
- Misbehaviour (Core's "Misbehaving" line; a peer without noban is disconnected): a filter
  over 36,000 bytes or 50 hash functions, a filteradd over 520 bytes or without a filter.
  The limits themselves are accepted; an empty filter with filteradd does not crash the node;
  a payload that does not decode is logged as Core's exception and not punished.
- With a filter watching a script (built here with our own MurmurHash3, checked against
  Core's filter bytes for that script): a MSG_FILTERED_BLOCK getdata is answered with a
  merkleblock whose partial merkle tree proves the matched transactions against the
  header's root, followed by those transactions; unmatched transactions are not announced,
  matched ones are; filterclear relays everything again; without a filter a filtered block
  request gets no answer.
- A mempool message announces the matching pool transactions only; a transaction in the
  pool when it was answered may then be fetched even if it was not announced.
- A peer whose version says relay=0 gets no transactions (getpeerinfo's relaytxes false)
  until it loads a filter.
"""
import struct

from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, hash160, p2wsh_script, segwit_address,
                        sha256d, sign_p2wpkh)
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until
from p2p import (MSG_BLOCK, MSG_FILTERED_BLOCK, MSG_WTX, NODE_BLOOM, MsgMempool,
                 P2PConnection)

COIN = 100000000
WATCH = bytes.fromhex("a914" + "ff" * 20 + "87")  # P2SH, as Core's p2p_filter.py
OTHER = p2wsh_script(b"\x52")
# Core's p2p_filter.py: the filter (10 elements, fp 0.000001, tweak 0, BLOOM_UPDATE_ALL)
# with WATCH's 20-byte push inserted.
CORE_WATCH_FILTER = (b'@\x00\x08\x00\x80\x00\x00 \x00\xc0\x00 \x04\x00\x08$\x00\x04\x80\x00'
                     b'\x00 \x00\x00\x00\x00\x80\x00\x00@\x00\x02@ \x00')
M32 = 0xffffffff


def murmur3(seed, data):
    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & M32

    def mix(k):
        return (rotl((k * 0xcc9e2d51) & M32, 15) * 0x1b873593) & M32
    h = seed & M32
    n4 = len(data) // 4 * 4
    for i in range(0, n4, 4):
        h = (rotl(h ^ mix(int.from_bytes(data[i:i + 4], "little")), 13) * 5 + 0xe6546b64) & M32
    tail = data[n4:]
    if tail:
        h ^= mix(int.from_bytes(tail, "little"))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85ebca6b) & M32
    h ^= h >> 13
    h = (h * 0xc2b2ae35) & M32
    return h ^ (h >> 16)


class Bloom:
    def __init__(self, nbytes, nfuncs, tweak=0, flags=1):
        self.data = bytearray(nbytes)
        self.nfuncs, self.tweak, self.flags = nfuncs, tweak, flags

    def insert(self, key):
        for i in range(self.nfuncs):
            b = murmur3((i * 0xFBA4C795 + self.tweak) & M32, key) % (len(self.data) * 8)
            self.data[b >> 3] |= 1 << (b & 7)

    def payload(self):
        return (bytes([len(self.data)]) + bytes(self.data) +
                struct.pack("<IIB", self.nfuncs, self.tweak, self.flags))


def filterload(data, nfuncs=1, tweak=0, flags=0):
    n = len(data)
    size = bytes([n]) if n < 0xfd else b"\xfd" + struct.pack("<H", n)
    return size + data + struct.pack("<IIB", nfuncs, tweak, flags)


def filteradd(data):
    n = len(data)
    return (bytes([n]) if n < 0xfd else b"\xfd" + struct.pack("<H", n)) + data


def compact(b, pos):
    n = b[pos]
    if n < 0xfd:
        return n, pos + 1
    size = {0xfd: 2, 0xfe: 4, 0xff: 8}[n]
    return int.from_bytes(b[pos + 1:pos + 1 + size], "little"), pos + 1 + size


def extract_merkleblock(payload):
    """(header merkle root, proven root, matched txids) of a merkleblock payload."""
    root = payload[36:68]
    ntx = struct.unpack_from("<I", payload, 80)[0]
    nh, pos = compact(payload, 84)
    hashes = [payload[pos + 32 * i:pos + 32 * (i + 1)] for i in range(nh)]
    nb, pos = compact(payload, pos + 32 * nh)
    assert_equal(pos + nb, len(payload))
    bits = [(payload[pos + i // 8] >> (i % 8)) & 1 for i in range(nb * 8)]
    width = lambda h: (ntx + (1 << h) - 1) >> h  # noqa: E731
    height = 0
    while width(height) > 1:
        height += 1
    state = {"bit": 0, "hash": 0}
    matched = []

    def walk(h, p):
        flag = bits[state["bit"]]
        state["bit"] += 1
        if h == 0 or not flag:
            x = hashes[state["hash"]]
            state["hash"] += 1
            if h == 0 and flag:
                matched.append(x)
            return x
        left = walk(h - 1, p * 2)
        right = walk(h - 1, p * 2 + 1) if p * 2 + 1 < width(h - 1) else left
        return sha256d(left + right)
    proven = walk(height, 0)
    assert_equal(state["hash"], nh)
    return root, proven, matched


class P2PFilterBip37Test(BitnodeTestFramework):
    num_nodes = 2

    def set_test_params(self):
        self.start_nodes_at_setup = False

    def connect(self, node, **kw):
        conn = P2PConnection(**kw)
        conn.connect(node.p2p_port)
        return conn

    def misbehaves(self, node, conn, command, payload, disconnected):
        mark = len(open(node.debug_log, errors="replace").read())
        conn.send(command, payload)
        if disconnected:
            conn.wait_for_disconnect(timeout=30)
        else:
            conn.sync_with_ping()
        wait_until(lambda: "Misbehaving" in open(node.debug_log, errors="replace").read()[mark:],
                   timeout=10, what="Misbehaving for " + command)

    def accepted(self, node, conn, command, payload):
        mark = len(open(node.debug_log, errors="replace").read())
        conn.send(command, payload)
        conn.sync_with_ping()
        assert_true("Misbehaving" not in open(node.debug_log, errors="replace").read()[mark:],
                    command + " accepted")

    def run_test(self):
        node, plain = self.nodes
        self.log("our filter for WATCH is Core's, bit for bit")
        f = Bloom(35, 19)  # Core's sizing for 10 elements at 0.000001
        f.insert(WATCH[2:22])
        assert_equal(bytes(f.data), CORE_WATCH_FILTER)
        self.watch_filter = f.payload()

        self.test_not_offered(plain)
        node.start(["-peerbloomfilters", "-debug=net"])
        self.test_limits(node)
        node.stop()
        node.start(["-peerbloomfilters", "-debug=net", "-whitelist=noban,relay@127.0.0.1"])
        self.key = Key(0x3737)
        addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = node.rpc("generatetoaddress", 120, addr)
        self.coins = [self.coinbase_of(node, h) for h in hashes[:20]]
        self.test_filter(node)
        self.test_mempool(node)
        self.test_relay_false(node)

    def test_not_offered(self, plain):
        self.log("without -peerbloomfilters: no NODE_BLOOM, a filterload disconnects")
        plain.start(["-debug=net"])
        assert_true("BLOOM" not in plain.rpc("getnetworkinfo")["localservicesnames"], "no BLOOM")
        conn = self.connect(plain)
        assert_equal(conn.peer_version.services & NODE_BLOOM, 0)
        conn.send("filterload", self.watch_filter)
        conn.wait_for_disconnect(timeout=30)
        plain.stop()
        self.log("the bloomfilter permission offers NODE_BLOOM to that peer alone")
        plain.start(["-debug=net", "-whitelist=bloomfilter@127.0.0.1"])
        assert_true("BLOOM" not in plain.rpc("getnetworkinfo")["localservicesnames"], "no BLOOM")
        conn = self.connect(plain)
        assert_equal(conn.peer_version.services & NODE_BLOOM, NODE_BLOOM)
        conn.send("filterload", self.watch_filter)
        conn.sync_with_ping()
        assert_true(conn.is_connected, "kept")
        plain.stop()

    def test_limits(self, node):
        self.log("-peerbloomfilters: NODE_BLOOM offered")
        assert_in("BLOOM", node.rpc("getnetworkinfo")["localservicesnames"])
        conn = self.connect(node)
        assert_equal(conn.peer_version.services & NODE_BLOOM, NODE_BLOOM)
        self.log("the largest filter and the most hash functions are accepted")
        self.accepted(node, conn, "filterload", filterload(b"\xbb" * 36000))
        self.accepted(node, conn, "filterload", filterload(b"\xaa", nfuncs=50))
        self.accepted(node, conn, "filteradd", filteradd(b"\xcc" * 520))
        self.accepted(node, conn, "filterclear", b"")
        self.log("an empty filter takes filteradd (CVE-2013-5700)")
        self.accepted(node, conn, "filterload", filterload(b"", nfuncs=1))
        self.accepted(node, conn, "filteradd", filteradd(b"letstrytocrashthisnode"))
        self.log("a filterload that does not decode: Core's exception line, not punished")
        self.accepted(node, conn, "filterload", b"\x05ab")
        assert_in("ProcessMessages(filterload, 3 bytes): Exception", open(node.debug_log).read())
        self.log("a filter one byte too large: misbehaviour, disconnected")
        self.misbehaves(node, conn, "filterload", filterload(b"\xbb" * 36001), True)
        conn = self.connect(node)
        self.log("51 hash functions: misbehaviour")
        self.misbehaves(node, conn, "filterload", filterload(b"\xaa", nfuncs=51), True)
        conn = self.connect(node)
        self.log("filteradd without a filter: misbehaviour")
        self.misbehaves(node, conn, "filteradd", filteradd(b"letsmisbehave"), True)
        conn = self.connect(node)
        conn.send("filterload", filterload(b"\xaa", nfuncs=5))
        self.log("filteradd of 521 bytes: misbehaviour")
        self.misbehaves(node, conn, "filteradd", filteradd(b"\xcc" * 521), True)

    def coinbase_of(self, node, h):
        cb = node.rpc("getblock", h, 2)["tx"][0]
        return (OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
                int(round(cb["vout"][0]["value"] * COIN)))

    def send_to(self, node, spk):
        outpoint, value = self.coins.pop()
        tx = Tx([TxIn(outpoint, b"", 0xFFFFFFFD)], [TxOut(value - 10000, spk)])
        sign_p2wpkh(tx, 0, self.key, value)
        node.rpc("sendrawtransaction", tx.hex())
        return tx

    def announced(self, conn, tx, since):
        return any(m.command == "inv" and any(h == tx.wtxid for _, h in m.inv)
                   for m in conn.messages[since:])

    def mine_and_filter(self, node, conn, spk):
        """Mines a block paying spk, asks for it filtered after its inv: (block hash, the
        merkleblock's matched txids, the txs that followed)."""
        mark = conn.log_index()
        h = node.rpc("generatetodescriptor", 1, "raw(%s)" % spk.hex())[0]
        bh = bytes.fromhex(h)[::-1]
        conn.wait_for(lambda: any(m.command == "inv" and (MSG_BLOCK, bh) in m.inv
                                  for m in conn.messages[mark:]), desc="block inv")
        mark = conn.log_index()
        conn.send_getdata([(MSG_FILTERED_BLOCK, bh)])
        mb = conn.wait_for("merkleblock", since=mark, timeout=30)
        conn.sync_with_ping()
        root, proven, matched = extract_merkleblock(mb.payload)
        assert_equal(proven, root)
        assert_equal(sha256d(mb.payload[:80]), bh)
        txs = [m.tx().txid for m in conn.messages[mark:] if m.command == "tx"]
        return h, matched, txs

    def test_filter(self, node):
        conn = self.connect(node)
        conn.send("filterload", self.watch_filter)
        conn.sync_with_ping()
        assert_true(node.rpc("getpeerinfo")[0]["relaytxes"], "relaytxes")
        self.log("a block paying the watched script: merkleblock proving its coinbase, and the tx")
        h, matched, txs = self.mine_and_filter(node, conn, WATCH)
        cb = bytes.fromhex(node.rpc("getblock", h)["tx"][0])[::-1]
        assert_equal(matched, [cb])
        assert_equal(txs, [cb])
        self.log("a block paying elsewhere: a merkleblock proving nothing, no tx")
        h, matched, txs = self.mine_and_filter(node, conn, OTHER)
        assert_equal((matched, txs), ([], []))

        self.log("transactions: the one paying elsewhere is not announced, the watched one is")
        mark = conn.log_index()
        other = self.send_to(node, OTHER)
        watched = self.send_to(node, WATCH)
        conn.wait_for(lambda: self.announced(conn, watched, mark), timeout=30, desc="watched inv")
        conn.sync_with_ping()
        assert_true(not self.announced(conn, other, mark), "unwatched not announced")
        self.log("a block with both: the merkleblock proves the watched one only")
        h, matched, txs = self.mine_and_filter(node, conn, OTHER)
        assert_equal((matched, txs), ([watched.txid], [watched.txid]))

        self.log("filterclear: everything is announced again")
        conn.send("filterclear")
        conn.sync_with_ping()
        mark = conn.log_index()
        other = self.send_to(node, OTHER)
        conn.wait_for(lambda: self.announced(conn, other, mark), timeout=30, desc="inv after clear")
        self.log("without a filter, a filtered block request gets no answer")
        h = node.rpc("generatetodescriptor", 1, "raw(%s)" % OTHER.hex())[0]
        mark = conn.log_index()
        conn.send_getdata([(MSG_FILTERED_BLOCK, bytes.fromhex(h)[::-1])])
        conn.sync_with_ping()
        assert_true(all(m.command not in ("merkleblock", "tx", "block")
                        for m in conn.messages[mark:]), "no answer")
        assert_in("received getdata (1 invsz) peer=", open(node.debug_log).read())
        conn.close()

    def test_mempool(self, node):
        self.log("mempool message: only the matching transactions are announced")
        rel = self.send_to(node, WATCH)
        irr = self.send_to(node, OTHER)
        conn = self.connect(node)
        conn.send("filterload", self.watch_filter)
        conn.sync_with_ping()
        mark = conn.log_index()
        conn.send_message(MsgMempool())
        conn.wait_for(lambda: self.announced(conn, rel, mark), timeout=30, desc="mempool inv")
        conn.sync_with_ping()
        assert_true(not self.announced(conn, irr, mark), "irrelevant not announced")
        self.log("the unannounced one was in the pool then: it is served")
        mark = conn.log_index()
        conn.send_getdata([(MSG_WTX, irr.wtxid)])
        got = conn.wait_for("tx", since=mark, timeout=30)
        assert_equal(got.tx().txid, irr.txid)
        node.rpc("generatetoaddress", 1, segwit_address("bcrt", 0, hash160(self.key.pubkey)))
        conn.close()

    def test_relay_false(self, node):
        self.log("version relay=0: no transactions until a filter is loaded")
        conn = self.connect(node, relay=False)
        wait_until(lambda: len(node.rpc("getpeerinfo")) == 1, what="one peer")
        assert_equal(node.rpc("getpeerinfo")[0]["relaytxes"], False)
        mark = conn.log_index()
        tx = self.send_to(node, WATCH)
        conn.sync_with_ping()
        conn.sync_with_ping()
        assert_true(not any(m.command == "inv" and any(t == MSG_WTX for t, _ in m.inv)
                            for m in conn.messages[mark:]), "no tx inv")
        conn.send("filterload", self.watch_filter)
        conn.sync_with_ping()
        assert_equal(node.rpc("getpeerinfo")[0]["relaytxes"], True)
        mark = conn.log_index()
        tx = self.send_to(node, WATCH)
        conn.wait_for(lambda: self.announced(conn, tx, mark), timeout=30, desc="inv after load")
        conn.close()


if __name__ == "__main__":
    P2PFilterBip37Test().main()
