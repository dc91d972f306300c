#!/usr/bin/env python3
"""The rate limit of transaction announcements (-txsendrate, Core's inventory token buckets),
under setmocktime:

- getnetworkinfo's tx_send_rate (-txsendrate clamped to 1..1000, 14 by default) and
  inv_buckets: a fresh node's buckets are full (30 seconds' worth of count tokens, 12 MB of
  size tokens);
- a burst at a frozen clock: the first 30 (-txsendrate=1) go to the inbound peer's queue at
  once, the rest wait in the backlog (inbound and outbound, as Core: a direction without
  peers is emptied only when something is drained);
- a backlogged transaction replaced leaves the backlog when it is drained; the best of the
  backlog (by fee rate) drain first, the count bucket going down to five seconds' worth
  below zero; nothing more until it is above zero again; every surviving transaction is
  announced once.

The peer has noban permission, so that its announcements go out at each tick and not on
the Poisson trickle timer (Core's rule for noban peers): what it gets is exactly what the
buckets let through.
"""
import time

from blocktools import coinbase_coin, spend_p2wpkh_coin, Key, Tx, TxIn, TxOut, P2WSH_TRUE, hash160, segwit_address, sign_p2wpkh
from blocktools import OutPoint
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from p2p import MSG_WTX, P2PConnection

COIN = 100000000
RATE = 1
CAP = RATE * 30
N = 40


class TxRateTest(BitnodeTestFramework):
    num_nodes = 2
    extra_args = [["-txsendrate=%d" % RATE, "-whitelist=noban@127.0.0.1", "-debug=net"], []]

    def run_test(self):
        self.test_option(self.nodes[1])
        node = self.nodes[0]
        self.key = Key(0x7a7e)
        self.addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        self.t = int(time.time())
        node.rpc("setmocktime", self.t)
        hashes = node.rpc("generatetoaddress", 100 + N + 1, self.addr)
        self.coins = [self.coinbase_of(node, h) for h in hashes[:N + 1]]
        info = node.rpc("getnetworkinfo")
        assert_equal(info["tx_send_rate"], RATE)
        self.peer = P2PConnection()
        self.peer.connect(node.p2p_port)
        self.bump(node, 1)
        self.peer.sync_with_ping()
        time.sleep(0.5)  # a tick: the peer's trickle timer runs (nothing before it is queued)
        self.test_burst(node)
        self.test_drain(node)

    def test_option(self, node):
        self.log("-txsendrate: the default, the clamp, and the full buckets of a fresh node")
        info = node.rpc("getnetworkinfo")
        assert_equal(info["tx_send_rate"], 14)
        for d in ("inbound", "outbound"):
            b = info["inv_buckets"][d]
            assert_equal(b["backlog"], 0)
            assert_equal(b["count_tok"], 14 * 30)
            assert_equal(b["size_tok"], 12e6)
        node.stop()
        node.start(["-txsendrate=0"])
        assert_equal(node.rpc("getnetworkinfo")["tx_send_rate"], 1)
        assert_equal(node.rpc("getnetworkinfo")["inv_buckets"]["inbound"]["count_tok"], 30)
        node.stop()
        node.start(["-txsendrate=5000"])
        assert_equal(node.rpc("getnetworkinfo")["tx_send_rate"], 1000)
        node.stop()

    def bump(self, node, seconds):
        self.t += seconds
        node.rpc("setmocktime", self.t)

    def buckets(self, node):
        return node.rpc("getnetworkinfo")["inv_buckets"]

    def announced(self):
        with self.peer.lock:
            return [h for m in self.peer.messages if m.command == "inv"
                    for t, h in m.inv if t == MSG_WTX]

    def test_burst(self, node):
        self.log("a burst at a frozen clock: %d go at once, %d wait" % (CAP, N - CAP))
        self.txs = []
        for i in range(N):
            # The backlogged ones pay more the later they come: the last is the best.
            fee = 1000 if i < CAP else 1000 + 100 * (i - CAP + 1)
            tx = self.spend(self.coins[i], fee)
            node.rpc("sendrawtransaction", tx.hex())
            self.txs.append(tx)
        b = self.buckets(node)
        assert_equal(b["inbound"]["backlog"], N - CAP)
        assert_equal(b["inbound"]["count_tok"], 0)
        # No outbound peer, but nothing drained since the bucket ran dry: Core keeps them.
        assert_equal(b["outbound"]["backlog"], N - CAP)
        wait_until(lambda: len(self.announced()) >= CAP, timeout=30, what="the first invs")
        time.sleep(0.5)
        got = self.announced()
        assert_equal(len(got), CAP)
        assert_equal(set(got), set(tx.wtxid for tx in self.txs[:CAP]))

        self.log("a backlogged transaction replaced: the replacement waits too")
        self.orig = self.txs[CAP + 5]
        self.repl = self.spend(self.coins[CAP + 5], 5000)
        node.rpc("sendrawtransaction", self.repl.hex())
        assert_equal(self.buckets(node)["inbound"]["backlog"], N - CAP + 1)

    def test_drain(self, node):
        self.log("four seconds: four tokens and five below zero, the best nine first")
        self.bump(node, 4)
        wait_until(lambda: len(self.announced()) >= CAP + 9, timeout=30, what="nine more")
        time.sleep(0.5)
        got = self.announced()
        assert_equal(len(got), CAP + 9)
        expected = [self.repl.wtxid] + [tx.wtxid for tx in reversed(self.txs[CAP + 1:])
                                        if tx is not self.orig]
        assert_equal(set(got[CAP:]), set(expected))
        b = self.buckets(node)
        assert_equal(b["inbound"]["backlog"], 1)  # the lowest fee; the replaced one dropped
        assert_equal(b["inbound"]["count_tok"], -5)
        assert_equal(b["outbound"]["backlog"], 0)  # drained with no outbound peer: emptied

        self.log("below zero, nothing; above it again, the last one")
        self.bump(node, 2)
        self.peer.sync_with_ping()
        time.sleep(0.3)
        assert_equal(self.buckets(node)["inbound"]["backlog"], 1)
        assert_equal(len(self.announced()), CAP + 9)
        self.bump(node, 4)
        wait_until(lambda: len(self.announced()) >= N, timeout=30, what="the last inv")
        time.sleep(0.5)
        got = self.announced()
        assert_equal(len(got), N)
        assert_equal(got[-1], self.txs[CAP].wtxid)
        assert_true(self.orig.wtxid not in got, "the replaced one is not announced")
        assert_equal(self.buckets(node)["inbound"]["backlog"], 0)

    def coinbase_of(self, node, h):
        return coinbase_coin(node, h)

    def spend(self, coin, fee, sequence=0xFFFFFFFD):
        return spend_p2wpkh_coin(coin, fee, self.key, sequence)


if __name__ == "__main__":
    TxRateTest().main()
