#!/usr/bin/env python3
"""Compact blocks (BIP152 version 2) between two bitnoded nodes: after node A gives node B a
new tip, B asks A for high-bandwidth announcements; A's next block reaches B as a cmpctblock
and is reconstructed from B's pool without a round trip when its transactions were relayed
first; a block with a transaction B never saw is completed with getblocktxn / blocktxn.
Then, from a test peer that sent sendcmpct 2 (Core's receiving rules): its header
announcement is fetched as MSG_CMPCT_BLOCK and the solicited cmpctblock is used; its
unsolicited cmpctblock (it is not high-bandwidth) is ignored; an empty getblocktxn
disconnects it. Last, A restarts pruned (-prune=1: NODE_NETWORK_LIMITED, so B asks it only
for its last 288 blocks), and a burst of 400 blocks, mined between two of A's network ticks,
still reaches B whole: each block that came on A's tip goes to its high-bandwidth peer as a
cmpctblock, in order (Core's NewPoWValidBlock); announced as one inv of the tip before, the
burst left B without the blocks 400 to 288 below it for good (Core's rpc_rawtransaction)."""
import os
import re

from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, hash160, segwit_address,
                        sign_p2wpkh)
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from p2p import MSG_CMPCT_BLOCK, P2PConnection

COIN = 100000000


class CompactBlocksTest(BitnodeTestFramework):
    num_nodes = 2

    def set_test_params(self):
        self.start_nodes_at_setup = False

    def reconstructed(self, node, block_hash):
        with open(node.debug_log) as f:
            text = f.read()
        m = re.search(r"Successfully reconstructed block %s with (\d+) txn prefilled, (\d+) txn "
                      r"from mempool \(incl at least (\d+) from extra pool\) and (\d+) txn "
                      r"requested" % block_hash, text)
        return tuple(int(x) for x in m.groups()) if m else None

    def msgs(self, node, key):
        return node.rpc("getpeerinfo")[0][key]

    def run_test(self):
        a, b = self.nodes
        a.start(["-debug=net", "-debug=cmpctblock"])
        b.start(["-debug=net", "-debug=cmpctblock", "-connect=127.0.0.1:%d" % a.p2p_port])
        wait_until(lambda: len(b.rpc("getpeerinfo")) == 1, timeout=30, what="connected")
        key = Key(0xC0FFEE)
        addr = segwit_address("bcrt", 0, hash160(key.pubkey))
        hashes = a.rpc("generatetoaddress", 105, addr)
        wait_until(lambda: b.rpc("getblockcount") == 105, timeout=60, what="b synced")
        # Out of initial block download now: the next tip from A makes it high-bandwidth.
        a.rpc("generatetoaddress", 1, addr)
        wait_until(lambda: b.rpc("getblockcount") == 106, timeout=30, what="b has block 106")
        wait_until(lambda: self.msgs(b, "bytessent_per_msg").get("sendcmpct", 0) >= 2 * 33,
                   timeout=30, what="b asked a for high-bandwidth compact blocks")
        assert_equal((self.msgs(b, "bip152_hb_to"), self.msgs(b, "bip152_hb_from")),
                     (True, False))
        wait_until(lambda: self.msgs(a, "bip152_hb_from"), timeout=30,
                   what="a's getpeerinfo: b asked for high-bandwidth")
        assert_equal(self.msgs(a, "bip152_hb_to"), False)

        coins = []
        for h in hashes[:3]:
            cb = a.rpc("getblock", h, 2)["tx"][0]
            coins.append((OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
                          int(round(cb["vout"][0]["value"] * COIN))))

        def spend(coin, fee):
            tx = Tx([TxIn(coin[0], b"", 0xFFFFFFFD)], [TxOut(coin[1] - fee, P2WSH_TRUE)])
            sign_p2wpkh(tx, 0, key, coin[1])
            return tx

        self.log("transactions relayed first: the cmpctblock needs no round trip")
        t1, t2 = spend(coins[0], 1000), spend(coins[1], 2000)
        for t in (t1, t2):
            a.rpc("sendrawtransaction", t.hex())
        wait_until(lambda: len(b.rpc("getrawmempool")) == 2, timeout=60, what="relayed to b")
        h = a.rpc("generatetoaddress", 1, addr)[0]
        wait_until(lambda: b.rpc("getbestblockhash") == h, timeout=30, what="b has the block")
        assert_equal(self.reconstructed(b, h), (1, 2, 0, 0))
        assert_true("getblocktxn" not in self.msgs(b, "bytessent_per_msg"), "no getblocktxn")
        assert_true(self.msgs(a, "bytessent_per_msg").get("cmpctblock", 0) > 0,
                    "a sent a cmpctblock")
        assert_equal(b.rpc("getrawmempool"), [])

        self.log("a transaction b never saw is fetched with getblocktxn")
        t3 = spend(coins[2], 3000)
        h = a.rpc("generateblock", addr, [t3.hex()])["hash"]
        wait_until(lambda: b.rpc("getbestblockhash") == h, timeout=30, what="b has the block")
        assert_equal(self.reconstructed(b, h), (1, 0, 0, 1))
        assert_true(self.msgs(b, "bytessent_per_msg").get("getblocktxn", 0) > 0, "getblocktxn")
        assert_true(self.msgs(a, "bytessent_per_msg").get("blocktxn", 0) > 0, "blocktxn")
        assert_equal(a.rpc("getblockheader", h)["nTx"], 2)

        self.test_peer_rules(a, addr)

        self.log("a burst of 400 blocks from a pruned node reaches b block by block")
        a.stop()
        a.start(["-debug=net", "-debug=cmpctblock", "-prune=1"])
        wait_until(lambda: len(a.rpc("getpeerinfo")) == 1, timeout=60, what="b back")
        h = a.rpc("generatetoaddress", 1, addr)[0]
        wait_until(lambda: b.rpc("getbestblockhash") == h, timeout=30, what="b has the block")
        wait_until(lambda: self.msgs(a, "bip152_hb_from"), timeout=30, what="b asked again")
        sent = self.count_sent(a, "cmpctblock")
        tip = a.rpc("generatetoaddress", 400, addr)[-1]
        wait_until(lambda: b.rpc("getbestblockhash") == tip, timeout=120, what="b has the burst")
        assert_true(self.count_sent(a, "cmpctblock") - sent >= 400, "a cmpctblock per block")

    @staticmethod
    def count_sent(node, cmd):
        with open(node.debug_log) as f:
            return f.read().count("sending %s (" % cmd)

    @staticmethod
    def cmpct_of(raw):
        """The cmpctblock of a block with only its coinbase: prefilled, no short ids."""
        assert raw[80] == 1, "one transaction"
        return raw[:80] + os.urandom(8) + b"\x00" + b"\x01" + b"\x00" + raw[81:]

    def test_peer_rules(self, a, addr):
        peer = P2PConnection()
        peer.connect(a.p2p_port)
        peer.sync_with_ping()

        self.log("a header announcement from a compact block peer is fetched as one")
        blk = a.rpc("generateblock", addr, [], False)
        raw = bytes.fromhex(blk["hex"])
        mark = peer.log_index()
        peer.announce_block_by_headers(raw[:80])
        getdata = peer.wait_for("getdata", since=mark)
        assert_equal([(i.type, i.hash[::-1].hex()) for i in getdata.inv],
                     [(MSG_CMPCT_BLOCK, blk["hash"])])
        peer.send("cmpctblock", self.cmpct_of(raw))
        peer.sync_with_ping()
        wait_until(lambda: a.rpc("getbestblockhash") == blk["hash"], timeout=30,
                   what="the solicited cmpctblock of a low-bandwidth peer is used")

        # Its block became the tip with nothing else in flight: a asked it for
        # high-bandwidth announcements (Core's MaybeSetPeerAsAnnouncingHeaderAndIDs).
        wait_until(lambda: any(p["bip152_hb_to"] for p in a.rpc("getpeerinfo")), timeout=30,
                   what="the peer became high-bandwidth")

        self.log("an unsolicited cmpctblock from a low-bandwidth peer is ignored")
        peer.close()
        peer = P2PConnection()
        peer.connect(a.p2p_port)
        peer.sync_with_ping()
        blk = a.rpc("generateblock", addr, [], False)
        raw = bytes.fromhex(blk["hex"])
        peer.send("cmpctblock", self.cmpct_of(raw))
        peer.sync_with_ping()
        assert_true(a.rpc("getbestblockhash") != blk["hash"], "cmpctblock ignored")
        with open(a.debug_log) as f:
            assert_true("not marked as high-bandwidth, sent us an unsolicited compact block"
                        in f.read(), "logged as Core does")
        peer.send_block(raw)
        peer.sync_with_ping()
        assert_equal(a.rpc("getbestblockhash"), blk["hash"])

        self.log("getblocktxn without indexes disconnects")
        peer.send("getblocktxn", bytes.fromhex(blk["hash"])[::-1] + b"\x00")
        peer.wait_for_disconnect(timeout=30)


if __name__ == "__main__":
    CompactBlocksTest().main()
