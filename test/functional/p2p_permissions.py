#!/usr/bin/env python3
"""Whitelisting as Core's (its p2p_permissions, in short):

- a -whitelist entry without permissions grants noban and mempool, relay unless
  -whitelistrelay=0, forcerelay with -whitelistforcerelay (which also turns relay on);
- "out" entries apply to manual outbound connections only, "in" (the default) to inbound;
  a direction without permissions, "out" in -whitebind, an unresolvable -whitebind and a
  -whitebind with -listen=0 stop start-up with Core's messages;
- forcerelay: a transaction the node already has, sent again by such a peer, is announced
  to the other peers again (Core's "Force relaying tx"), one it refused is not ("Not
  relaying non-mempool transaction").
"""
import time

from blocktools import Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, hash160, segwit_address
from blocktools import sign_p2wpkh
from framework import BitnodeTestFramework, assert_equal, wait_until
from p2p import P2PConnection

COIN = 100000000


class PermissionsTest(BitnodeTestFramework):
    num_nodes = 2
    start_nodes_at_setup = False

    def logged(self, node, text):
        with open(node.debug_log, errors="replace") as f:
            return text in f.read()

    def perms_of_inbound(self, node, args):
        node.start(args)
        peer = P2PConnection().connect(node.p2p_port)
        perms = node.rpc("getpeerinfo")[0]["permissions"]
        peer.close()
        node.stop()
        return perms

    def run_test(self):
        a, b = self.nodes
        self.log("implicit permissions and the legacy switches")
        assert_equal(self.perms_of_inbound(a, ["-whitelist=127.0.0.1"]),
                     ["noban", "relay", "mempool", "download"])
        assert_equal(self.perms_of_inbound(a, ["-whitelist=127.0.0.1", "-whitelistrelay=0"]),
                     ["noban", "mempool", "download"])
        assert_equal(self.perms_of_inbound(a, ["-whitelist=127.0.0.1", "-whitelistforcerelay"]),
                     ["noban", "forcerelay", "relay", "mempool", "download"])
        assert_equal(self.perms_of_inbound(a, ["-whitelist=@127.0.0.1", "-whitelistforcerelay"]),
                     [])
        assert_equal(self.perms_of_inbound(a, ["-whitelist=noban,out@127.0.0.1"]), [])

        self.log("an \"out\" entry applies to a manual outbound connection")
        b.start()
        a.start(["-whitelist=noban,out@127.0.0.1"])
        a.rpc("addnode", "127.0.0.1:%d" % b.p2p_port, "onetry")
        wait_until(lambda: len(a.rpc("getpeerinfo")) == 1, timeout=30, what="connected")
        assert_equal(a.rpc("getpeerinfo")[0]["permissions"], ["noban", "download"])
        a.stop()
        b.stop()

        self.log("start-up errors")
        for args, msg in [
                (["-whitelist=in,out@127.0.0.1"], "Only direction was set, no permissions"),
                (["-whitebind=noban,out@127.0.0.1:1"],
                 "whitebind may only be used for incoming connections"),
                (["-whitebind=noban@127.0.0.1/10"], "Cannot resolve -whitebind address"),
                (["-whitebind=noban@127.0.0.1:1", "-listen=0"],
                 "Cannot set -bind or -whitebind together with -listen=0")]:
            a.assert_start_fails(args, msg)

        self.test_forcerelay(a)

    def test_forcerelay(self, node):
        self.log("forcerelay: a transaction the node has is announced again")
        node.start(["-whitelist=forcerelay@127.0.0.1"])
        key = Key(0xf0ce)
        addr = segwit_address("bcrt", 0, hash160(key.pubkey))
        h = node.rpc("generatetoaddress", 101, addr)[0]
        cb = node.rpc("getblock", h, 2)["tx"][0]
        value = int(round(cb["vout"][0]["value"] * COIN))
        tx = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                [TxOut(value - 1000, P2WSH_TRUE)])
        sign_p2wpkh(tx, 0, key, value)
        sender = P2PConnection().connect(node.p2p_port)
        sender.send_tx(tx)
        wait_until(lambda: tx.txid_hex in node.rpc("getrawmempool"), timeout=30, what="in pool")
        other = P2PConnection().connect(node.p2p_port)
        other.sync_with_ping()
        time.sleep(0.3)
        sender.send_tx(tx)
        wait_until(lambda: self.logged(node, "Force relaying tx %s (wtxid=%s) from peer=0"
                                       % (tx.txid_hex, tx.wtxid[::-1].hex())),
                   timeout=10, what="the force relay line")
        node.rpc("setmocktime", int(time.time()) + 60)  # the next trickle is due
        other.wait_for(lambda: any(m.command == "inv" and any(x == tx.wtxid for _, x in m.inv)
                                   for m in other.messages), timeout=30, desc="announced")
        node.rpc("setmocktime", 0)
        self.log("one refused is not")
        bad = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                 [TxOut(value - 1000, P2WSH_TRUE), TxOut(0, P2WSH_TRUE)])
        sign_p2wpkh(bad, 0, key, value)
        sender.send_tx(bad)
        sender.sync_with_ping()
        sender.send_tx(bad)
        wait_until(lambda: self.logged(node, "Not relaying non-mempool transaction %s (wtxid=%s) "
                                       "from forcerelay peer=0"
                                       % (bad.txid_hex, bad.wtxid[::-1].hex())),
                   timeout=10, what="the refusal line")
        node.stop()


if __name__ == "__main__":
    PermissionsTest().main()
