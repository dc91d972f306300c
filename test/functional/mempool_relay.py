#!/usr/bin/env python3
"""Transaction relay between two bitnoded nodes and with a Python peer: a signed spend of a
matured coinbase sent to node 0 reaches node 1's pool by inv/getdata/tx (wtxid relay), is
mined by generatetoaddress on either node and leaves both pools; a Python peer's transaction
is fetched after its inv; an orphan waits for its parent; getdata is served from the pool;
feefilter is honoured; the mempool message is answered as Core does; an unbroadcast
transaction is announced again when mockscheduler brings its time."""
import time

from blocktools import (coinbase_coin, spend_p2wpkh_coin, Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, SCRIPT_TRUE, hash160,
                        segwit_address, sign_p2wpkh)
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from p2p import MSG_TX, MSG_WTX, MSG_WITNESS_TX, P2PConnection

COIN = 100000000
# An announcement waits for the peer's trickle timer, drawn as Core draws it from an
# exponential distribution (mean 5 s to an inbound peer, 2 s to an outbound one): a 30 s wait
# misses about once in 400 runs (e^-6), which CI met under ASan. Core's tests wait 60 s
# (e^-12) for the same thing.
TRICKLE_WAIT = 60


class MempoolRelayTest(BitnodeTestFramework):
    num_nodes = 2

    def set_test_params(self):
        self.start_nodes_at_setup = False

    def run_test(self):
        a, b = self.nodes
        a.start(["-debug=net", "-debug=mempool"])
        b.start(["-debug=net", "-debug=mempool", "-connect=127.0.0.1:%d" % a.p2p_port])
        wait_until(lambda: len(a.rpc("getpeerinfo")) == 1 and len(b.rpc("getpeerinfo")) == 1,
                   timeout=30, what="connected")
        self.key = Key(0x5151)
        self.addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = a.rpc("generatetoaddress", 110, self.addr)
        wait_until(lambda: b.rpc("getblockcount") == 110, timeout=60, what="b synced")
        self.coins = [self.coinbase_of(a, h) for h in hashes[:10]]

        self.log("a transaction sent to node 0 reaches node 1")
        tx = self.spend(self.coins[0], 1000)
        txid = a.rpc("sendrawtransaction", tx.hex())
        wait_until(lambda: txid in b.rpc("getrawmempool"), timeout=TRICKLE_WAIT, what="relayed to b")
        self.log("mined on node 1, it leaves both pools")
        b.rpc("generatetoaddress", 1, self.addr)
        wait_until(lambda: a.rpc("getblockcount") == 111, timeout=30, what="block to a")
        wait_until(lambda: a.rpc("getrawmempool") == [] and b.rpc("getrawmempool") == [],
                   timeout=30, what="both pools empty")

        self.log("the other way: sent to node 1, mined on node 0")
        tx = self.spend(self.coins[1], 2000)
        txid = b.rpc("sendrawtransaction", tx.hex())
        wait_until(lambda: txid in a.rpc("getrawmempool"), timeout=TRICKLE_WAIT, what="relayed to a")
        h = a.rpc("generatetoaddress", 1, self.addr)[0]
        assert_true(txid in [t["txid"] for t in a.rpc("getblock", h, 2)["tx"]], "mined")
        wait_until(lambda: b.rpc("getrawmempool") == [], timeout=30, what="b's pool empty")

        self.test_python_peer(a)
        self.test_unbroadcast(a, b)
        self.test_reorg_served(a)

    def test_reorg_served(self, a):
        self.log("a transaction back from a disconnected block is served to a peer before any "
                 "announcement (Core: entry sequence 0, below every peer's first mark)")
        tx = self.spend(self.coins[8], 1000)
        a.rpc("sendrawtransaction", tx.hex())
        h = a.rpc("generatetoaddress", 1, self.addr)[0]
        a.rpc("invalidateblock", h)
        assert_true(tx.txid_hex in a.rpc("getrawmempool"), "back in the pool")
        peer = P2PConnection()
        peer.connect(a.p2p_port)
        peer.sync_with_ping()
        mark = peer.log_index()
        peer.send_getdata([(MSG_WTX, tx.wtxid)])
        got = peer.wait_for(lambda: next((m for m in peer.messages[mark:]
                                          if m.command in ("tx", "notfound")), None),
                            timeout=30, desc="tx or notfound")
        assert_equal(got.command, "tx")
        a.rpc("reconsiderblock", h)

    def test_unbroadcast(self, a, b):
        self.log("a transaction no peer asked for is announced again when its time comes "
                 "(mockscheduler moves it forward)")
        b.stop()
        wait_until(lambda: a.rpc("getpeerinfo") == [], timeout=30, what="a alone")
        tx = self.spend(self.coins[6], 1000)
        # Earlier ones may still be unbroadcast (the low-fee one, if node 1 did not fetch it
        # before it stopped): count from here.
        before = a.rpc("getmempoolinfo")["unbroadcastcount"]
        a.rpc("sendrawtransaction", tx.hex())
        assert_equal(a.rpc("getmempoolinfo")["unbroadcastcount"], before + 1)
        peer = P2PConnection()
        peer.connect(a.p2p_port)
        peer.sync_with_ping()
        time.sleep(6)  # beyond the 5 s inbound trickle: a new peer is not told by itself

        def inv_of_tx():
            for m in peer.messages:
                if m.command == "inv" and any(h == tx.wtxid for _, h in m.inv):
                    return m
            return None
        assert_true(inv_of_tx() is None, "not announced before the rebroadcast")
        a.rpc("mockscheduler", 16 * 60)
        peer.wait_for(inv_of_tx, timeout=TRICKLE_WAIT, desc="the rebroadcast inv")
        self.log("once the peer fetched it, it is no longer unbroadcast")
        mark = peer.log_index()
        peer.send_getdata([(MSG_WTX, tx.wtxid)])
        peer.wait_for("tx", since=mark, timeout=30)
        wait_until(lambda: a.rpc("getmempoolinfo")["unbroadcastcount"] == before, timeout=30,
                   what="the fetched one left the unbroadcast set")
        self.log("an unbroadcast transaction mined leaves the set with Core's log line")
        tx2 = self.spend(self.coins[7], 1000)
        a.rpc("sendrawtransaction", tx2.hex())
        assert_equal(a.rpc("getmempoolinfo")["unbroadcastcount"], before + 1)
        a.rpc("generatetoaddress", 1, self.addr)  # mines everything in the pool
        assert_equal(a.rpc("getmempoolinfo")["unbroadcastcount"], 0)
        line = ("Removed %s from set of unbroadcast txns before confirmation that txn was sent "
                "out" % tx2.txid_hex)
        wait_until(lambda: line in open(a.debug_log, errors="replace").read(), timeout=10,
                   what="the removal logged")
        try:
            a.rpc("mockscheduler", 3601)
            raise AssertionError("mockscheduler 3601 accepted")
        except Exception as e:
            assert_true("between 1 and 3600" in str(e), str(e))

    def coinbase_of(self, node, h):
        return coinbase_coin(node, h)

    def spend(self, coin, fee, sequence=0xFFFFFFFD):
        return spend_p2wpkh_coin(coin, fee, self.key, sequence)

    def test_python_peer(self, node):
        self.log("a Python peer's inv is answered with a getdata by wtxid; its tx enters")
        peer = P2PConnection()
        peer.connect(node.p2p_port)
        tx = self.spend(self.coins[2], 1500)
        mark = peer.log_index()
        peer.send_inv([(MSG_WTX, tx.wtxid)])
        got = peer.wait_for("getdata", since=mark, timeout=30)
        assert_equal([(t, h) for t, h in got.inv], [(MSG_WTX, tx.wtxid)])
        peer.send_tx(tx)
        wait_until(lambda: tx.txid_hex in node.rpc("getrawmempool"), timeout=30, what="in pool")

        self.log("a transaction never announced to the peer is not served to it (Core)")
        mark = peer.log_index()
        peer.send_getdata([(MSG_WTX, tx.wtxid)])
        peer.wait_for("notfound", since=mark, timeout=30)
        mark = peer.log_index()
        peer.send_getdata([(MSG_TX, bytes(32))])
        peer.wait_for("notfound", since=mark, timeout=30)

        self.log("an orphan waits for its parent, which the node asks for by txid")
        parent = self.spend(self.coins[3], 1000)
        child = Tx([TxIn(parent.outpoint(0), b"", 0xFFFFFFFD, [SCRIPT_TRUE])],
                   [TxOut(parent.vout[0].value - 1000, P2WSH_TRUE)])
        mark = peer.log_index()
        peer.send_tx(child)
        got = peer.wait_for("getdata", since=mark, timeout=30)
        assert_equal([(t, h) for t, h in got.inv], [(MSG_WITNESS_TX, parent.txid)])
        assert_true(child.txid_hex not in node.rpc("getrawmempool"), "orphan kept out")
        peer.send_tx(parent)
        wait_until(lambda: child.txid_hex in node.rpc("getrawmempool"), timeout=30,
                   what="the orphan accepted once its parent came")

        self.log("new transactions are announced to the peer; its feefilter is honoured")
        high = self.spend(self.coins[4], 5000)
        low = self.spend(self.coins[5], 200)
        peer.send_message(__import__("p2p").MsgFeeFilter(2500))  # 2.5 sat/vB: the 200-sat spend is below it
        peer.sync_with_ping()
        mark = peer.log_index()
        node.rpc("sendrawtransaction", low.hex())
        node.rpc("sendrawtransaction", high.hex())

        def announced():
            for m in peer.messages[mark:]:
                if m.command == "inv" and any(h == high.wtxid for _, h in m.inv):
                    return m
            return None
        peer.wait_for(announced, timeout=TRICKLE_WAIT, desc="inv of the high-fee tx")
        self.log("an announced transaction is served, by wtxid and by txid")
        mark2 = peer.log_index()
        peer.send_getdata([(MSG_WTX, high.wtxid)])
        m = peer.wait_for("tx", since=mark2, timeout=30)
        assert_equal(m.raw, high.serialize())
        mark2 = peer.log_index()
        peer.send_getdata([(MSG_WITNESS_TX, high.txid)])
        m = peer.wait_for("tx", since=mark2, timeout=30)
        assert_equal(m.raw, high.serialize())
        time.sleep(1)
        for m in peer.messages[mark:]:
            if m.command == "inv":
                assert_true(all(h != low.wtxid for _, h in m.inv), "low-fee tx not announced")

        self.log("a mempool message from a peer without permission: disconnected, as Core")
        peer.send_message(__import__("p2p").MsgMempool())
        peer.wait_for_disconnect(timeout=30)


if __name__ == "__main__":
    MempoolRelayTest().main()
