#!/usr/bin/env python3
"""-blocksonly as Core's (its p2p_blocksonly, in short):

- the node's version asks peers for no transactions (getnetworkinfo's localrelay false); a
  peer's tx or transaction inv is a protocol violation: logged, disconnected;
- a transaction submitted by RPC is still announced to the peers that take transactions and
  served when they ask for it (Core's "received getdata for: wtx <wtxid> peer=<id>");
- no feefilter is sent;
- a peer with the relay permission (-whitelist=relay@...) is asked for transactions in the
  node's version, and its transaction enters the pool and is relayed.
"""
import time

from blocktools import coinbase_coin, spend_p2wpkh_coin, Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, hash160, segwit_address
from blocktools import sign_p2wpkh
from framework import BitnodeTestFramework, assert_equal, assert_true, wait_until
from p2p import MSG_WTX, P2PConnection

COIN = 100000000


class BlocksOnlyTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-blocksonly", "-debug=net"]]

    def logged(self, text):
        with open(self.nodes[0].debug_log, errors="replace") as f:
            return text in f.read()

    def peer_id(self):
        return max(p["id"] for p in self.nodes[0].rpc("getpeerinfo"))

    def run_test(self):
        node = self.nodes[0]
        self.key = Key(0xb10c)
        self.addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = node.rpc("generatetoaddress", 103, self.addr)
        self.coins = [self.coinbase_of(node, h) for h in hashes[:3]]
        assert_equal(node.rpc("getnetworkinfo")["localrelay"], False)

        self.log("a peer's transaction is a protocol violation")
        peer = P2PConnection().connect(node.p2p_port)
        assert_equal(peer.peer_version.relay, False)
        pid = self.peer_id()
        peer.send_tx(self.spend(self.coins[0], 1000))
        peer.wait_for_disconnect()
        wait_until(lambda: self.logged("transaction sent in violation of protocol, disconnecting "
                                       "peer=%d" % pid), timeout=10, what="the violation logged")
        assert_equal(node.rpc("getrawmempool"), [])

        self.log("so is a transaction inv")
        peer = P2PConnection().connect(node.p2p_port)
        pid = self.peer_id()
        peer.send_inv([(MSG_WTX, bytes(31) + b"\x12")])
        peer.wait_for_disconnect()
        wait_until(lambda: self.logged("inv sent in violation of protocol, disconnecting "
                                       "peer=%d" % pid), timeout=10, what="the inv violation")

        self.log("a transaction from RPC is announced and served")
        peer = P2PConnection().connect(node.p2p_port)
        pid = self.peer_id()
        assert_equal(node.rpc("getpeerinfo")[0]["relaytxes"], True)
        peer.sync_with_ping()
        time.sleep(0.3)  # a tick: the peer's trickle timer runs
        tx = self.spend(self.coins[1], 1000)
        node.rpc("sendrawtransaction", tx.hex())
        node.rpc("setmocktime", int(time.time()) + 60)  # the next trickle is due

        def inv_of_tx():
            return any(m.command == "inv" and any(h == tx.wtxid for _, h in m.inv)
                       for m in peer.messages)
        peer.wait_for(inv_of_tx, timeout=30, desc="the inv")
        mark = peer.log_index()
        peer.send_getdata([(MSG_WTX, tx.wtxid)])
        m = peer.wait_for("tx", since=mark, timeout=30)
        assert_equal(m.raw, tx.serialize())
        wait_until(lambda: self.logged("received getdata for: wtx %s peer=%d" % (tx.wtxid[::-1].hex(), pid)),
                   timeout=10, what="Core's getdata line")
        assert_true(all(m.command != "feefilter" for m in peer.messages), "no feefilter")
        node.rpc("setmocktime", 0)
        peer.close()

        self.log("a peer with the relay permission is asked for transactions, and relayed")
        node.stop()
        node.start(["-blocksonly", "-debug=net", "-whitelist=relay@127.0.0.1"])
        first = P2PConnection().connect(node.p2p_port)
        second = P2PConnection().connect(node.p2p_port)
        assert_equal(first.peer_version.relay, True)
        second.sync_with_ping()
        time.sleep(0.3)
        tx2 = self.spend(self.coins[2], 1000)
        first.send_tx(tx2)
        wait_until(lambda: tx2.txid_hex in node.rpc("getrawmempool"), timeout=30, what="in pool")
        node.rpc("setmocktime", int(time.time()) + 60)
        second.wait_for(lambda: any(m.command == "inv" and any(h == tx2.wtxid for _, h in m.inv)
                                    for m in second.messages), timeout=30, desc="relayed")
        first.sync_with_ping()
        node.rpc("setmocktime", 0)

    def coinbase_of(self, node, h):
        return coinbase_coin(node, h)

    def spend(self, coin, fee, sequence=0xFFFFFFFD):
        return spend_p2wpkh_coin(coin, fee, self.key, sequence)


if __name__ == "__main__":
    BlocksOnlyTest().main()
