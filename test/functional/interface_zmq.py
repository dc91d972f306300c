#!/usr/bin/env python3
"""ZMQ notifications, seen by a real subscriber (Debian's python3-zmq): every topic's three
frames (topic, body, 4-byte little-endian counter with no gap), the bodies (hashes in display
order, the block and transactions as getblock and the mempool have them, the sequence topic's
C/D/A/R labels with the mempool sequence), the order Core gives them (a block's transactions,
'C', then hashblock; a reorganisation's 'D's, its transactions back as 'A', the new blocks'
'C's and one hashblock for the new tip), getzmqnotifications, an address that cannot bind
(the node runs without ZMQ, as Core's) and a bad port (refused at start-up)."""

import struct

import zmq

from blocktools import (Key, OutPoint, P2WSH_TRUE, SCRIPT_TRUE, Tx, TxIn, TxOut, hash160,
                        segwit_address, sha256d, sign_p2wpkh)
from framework import (BitnodeTestFramework, assert_equal, assert_true, free_port)

COIN = 100000000
TOPICS = ["hashblock", "hashtx", "rawblock", "rawtx", "sequence"]


class Subscriber:
    """One SUB socket on one topic; checks the counter never skips."""

    def __init__(self, ctx, address, topic):
        self.topic = topic.encode()
        self.sock = ctx.socket(zmq.SUB)
        self.sock.setsockopt(zmq.SUBSCRIBE, self.topic)
        self.sock.setsockopt(zmq.RCVTIMEO, 30000)
        self.sock.connect(address)
        self.seq = None

    def receive(self):
        topic, body, seq = self.sock.recv_multipart()
        assert_equal(topic, self.topic)
        n = struct.unpack("<I", seq)[0]
        if self.seq is not None:
            assert_equal(n, self.seq + 1)
        self.seq = n
        return body

    def expect_none(self, ms=300):
        self.sock.setsockopt(zmq.RCVTIMEO, ms)
        try:
            self.sock.recv_multipart()
            raise AssertionError("unexpected %s message" % self.topic)
        except zmq.Again:
            pass
        finally:
            self.sock.setsockopt(zmq.RCVTIMEO, 30000)


def seq_msg(body):
    """(hash in display hex, label, mempool sequence or None)."""
    h, label = body[:32].hex(), chr(body[32])
    if label in "AR":
        assert_equal(len(body), 41)
        return h, label, struct.unpack("<Q", body[33:])[0]
    assert_equal(len(body), 33)
    return h, label, None


class ZMQTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        port = free_port()
        address = "tcp://127.0.0.1:%d" % port
        other = "tcp://127.0.0.1:%d" % free_port()

        self.log("a bad port is refused, an address that cannot bind turns ZMQ off")
        node.assert_start_fails(["-zmqpubhashblock=127.0.0.1:0"],
                                "Invalid port specified in -zmqpubhashblock: '127.0.0.1:0'")
        node.start(["-zmqpubrawtx=foo", "-zmqpubhashtx=bar"])
        assert_equal(node.rpc("getzmqnotifications"), [])
        node.stop()

        args = ["-zmqpub%s=%s" % (t, address) for t in TOPICS]
        args += ["-zmqpubhashblock=%s" % other, "-zmqpubrawtxhwm=50"]
        node.start(args)
        self.log("getzmqnotifications: Core's order, each notifier's address and mark")
        expected = [{"type": "pub" + t, "address": address, "hwm": 50 if t == "rawtx" else 1000}
                    for t in TOPICS]
        expected.insert(1, {"type": "pubhashblock", "address": other, "hwm": 1000})
        assert_equal(node.rpc("getzmqnotifications"), expected)

        ctx = zmq.Context()
        subs = {t: Subscriber(ctx, address, t) for t in TOPICS}
        second = Subscriber(ctx, other, "hashblock")
        self.sync_up(node, subs, second)

        self.log("blocks: coinbase on hashtx/rawtx, then 'C', then hashblock and rawblock")
        key = Key(0x5151)
        addr = segwit_address("bcrt", 0, hash160(key.pubkey))
        hashes = node.rpc("generatetoaddress", 101, addr)
        for h in hashes:
            self.expect_block(node, subs, h)
            assert_equal(second.receive().hex(), h)

        self.log("a mempool transaction: hashtx, rawtx, 'A' with the mempool sequence")
        cb = node.rpc("getblock", hashes[0], 2)["tx"][0]
        value = int(round(cb["vout"][0]["value"] * COIN))
        tx = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                [TxOut(value - 1000, P2WSH_TRUE)])
        sign_p2wpkh(tx, 0, key, value)
        seq_before = node.rpc("getrawmempool", False, True)["mempool_sequence"]
        txid = node.rpc("sendrawtransaction", tx.hex())
        assert_equal(subs["hashtx"].receive().hex(), txid)
        raw = subs["rawtx"].receive()
        assert_equal(raw, bytes.fromhex(tx.hex()))
        assert_equal(sha256d(raw)[::-1].hex(), node.rpc("getmempoolentry", txid)["wtxid"])
        assert_equal(seq_msg(subs["sequence"].receive()), (txid, "A", seq_before))
        assert_equal(node.rpc("getrawmempool", False, True),
                     {"txids": [txid], "mempool_sequence": seq_before + 1})

        self.log("a replacement: 'R' for the replaced, then the new one's 'A'")
        tx2 = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                 [TxOut(value - 5000, P2WSH_TRUE)])
        sign_p2wpkh(tx2, 0, key, value)
        txid2 = node.rpc("sendrawtransaction", tx2.hex())
        assert_equal(seq_msg(subs["sequence"].receive()), (txid, "R", seq_before + 1))
        assert_equal(subs["hashtx"].receive().hex(), txid2)
        subs["rawtx"].receive()
        assert_equal(seq_msg(subs["sequence"].receive()), (txid2, "A", seq_before + 2))

        self.log("mined: no 'R' for a block's transaction, but the sequence moves")
        [h] = node.rpc("generatetoaddress", 1, addr)
        block = node.rpc("getblock", h)
        assert_equal(block["tx"][1], txid2)
        self.expect_block(node, subs, h)
        assert_equal(second.receive().hex(), h)
        assert_equal(node.rpc("getrawmempool", False, True),
                     {"txids": [], "mempool_sequence": seq_before + 4})

        self.log("invalidateblock: 'D' with its transactions, the payment back as 'A', no "
                 "hashblock")
        node.rpc("invalidateblock", h)
        for t in block["tx"]:
            assert_equal(subs["hashtx"].receive().hex(), t)
            subs["rawtx"].receive()
        assert_equal(seq_msg(subs["sequence"].receive()), (h, "D", None))
        assert_equal(subs["hashtx"].receive().hex(), txid2)
        subs["rawtx"].receive()
        assert_equal(seq_msg(subs["sequence"].receive()), (txid2, "A", seq_before + 4))
        subs["hashblock"].expect_none()

        self.log("a longer branch: each new block's 'C', one hashblock for the tip")
        new = node.rpc("generatetoaddress", 1, "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw")
        self.expect_block(node, subs, new[0], extra_txids=[txid2])
        second.receive()
        self.log("reconsiderblock: back to the equal-work block received first (Core's rule): "
                 "'D', the payment back as 'A', 'C', one hashblock")
        node.rpc("reconsiderblock", h)
        assert_equal(node.rpc("getbestblockhash"), h)
        seen = [seq_msg(subs["sequence"].receive()) for _ in range(3)]
        assert_equal([x[:2] for x in seen], [(new[0], "D"), (txid2, "A"), (h, "C")])
        new_txs = node.rpc("getblock", new[0])["tx"]
        for t in new_txs + [txid2] + block["tx"]:  # new[0]'s out, the payment back, h's in
            assert_equal(subs["hashtx"].receive().hex(), t)
            subs["rawtx"].receive()
        assert_equal(subs["hashblock"].receive().hex(), h)
        assert_equal(subs["rawblock"].receive().hex(), node.rpc("getblock", h, 0))
        assert_equal(second.receive().hex(), h)
        subs["hashblock"].expect_none()

        self.log("a block of 151 transactions (its count takes a compact size's second byte "
                 "range): every one on hashtx and rawtx")
        for more in node.rpc("generatetoaddress", 3, "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw"):
            self.expect_block(node, subs, more)  # hashes[1:4] mature
            second.receive()
        txids = []
        for h_cb in hashes[1:4]:
            cb = node.rpc("getblock", h_cb, 2)["tx"][0]
            value = int(round(cb["vout"][0]["value"] * COIN))
            fan = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                     [TxOut((value - 10000) // 49, P2WSH_TRUE) for _ in range(49)])
            sign_p2wpkh(fan, 0, key, value)
            txids.append(node.rpc("sendrawtransaction", fan.hex()))
            each = (value - 10000) // 49
            for n in range(49):
                child = Tx([TxIn(OutPoint(fan.txid, n), b"", 0xFFFFFFFD, [SCRIPT_TRUE])],
                           [TxOut(each - 1000, P2WSH_TRUE)])
                txids.append(node.rpc("sendrawtransaction", child.hex()))
        for t in txids:
            assert_equal(subs["hashtx"].receive().hex(), t)
            subs["rawtx"].receive()
            assert_equal(seq_msg(subs["sequence"].receive())[:2], (t, "A"))
        [big] = node.rpc("generatetoaddress", 1, addr)
        assert_equal(len(node.rpc("getblock", big)["tx"]), 151)
        self.expect_block(node, subs, big, extra_txids=txids)
        assert_equal(second.receive().hex(), big)

        self.log("the counters never skipped")
        node.stop()
        for s in list(subs.values()) + [second]:
            s.sock.close()
        ctx.term()

    def sync_up(self, node, subs, second):
        """A subscriber connects after the node binds: mine until each topic has seen a
        message (PUB drops what it sends before a subscriber is there), then drain."""
        everyone = list(subs.values()) + [second]
        poller = zmq.Poller()
        for s in everyone:
            poller.register(s.sock, zmq.POLLIN)
        pending = set(everyone)
        while pending:
            node.rpc("generatetoaddress", 1, "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw")
            ready = dict(poller.poll(500))
            for s in everyone:
                while s.sock in ready and s.sock.poll(200):
                    s.receive()
                if s.seq is not None:
                    pending.discard(s)
        for s in everyone:
            while s.sock.poll(300):
                s.receive()

    def expect_block(self, node, subs, h, extra_txids=()):
        block = node.rpc("getblock", h, 2)
        raw_block = node.rpc("getblock", h, 0)
        for t in block["tx"]:
            assert_equal(subs["hashtx"].receive().hex(), t["txid"])
            assert_equal(subs["rawtx"].receive().hex(), t["hex"])
        assert_equal(seq_msg(subs["sequence"].receive()), (h, "C", None))
        assert_equal(subs["hashblock"].receive().hex(), h)
        assert_equal(subs["rawblock"].receive().hex(), raw_block)
        assert_true(all(t in [x["txid"] for x in block["tx"]] for t in extra_txids),
                    "the block holds the transactions")


if __name__ == "__main__":
    ZMQTest().main()
