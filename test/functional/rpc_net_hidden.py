#!/usr/bin/env python3
"""The hidden RPCs Bitcoin Core's functional test framework drives (Core's rpc/net.cpp and
getorphantxs of rpc/mempool.cpp), with Core's results, errors and messages, and
disconnectnode, against two regtest nodes, a signet node and Python peers on loopback.

node0 runs with -connect=0 (no automatic connections: addconnection alone opens them) and
-test=addrman (a fixed bucket key: the same addresses collide in the same slots every run);
node1 with -connect=0; node2 is a signet node. Every result is checked against its
declaration (-rpcdoccheck=1 in the framework's config).

- help: none of addconnection, addpeeraddress, sendmsgtopeer, getrawaddrman, getorphantxs is
  in the overview; `help METHOD` shows each one's signature.
- addconnection: -1 "addconnection is for regression testing (-regtest mode) only." on
  signet; an unknown connection type answers -8 with the method's help, whitespace around a
  known one is trimmed; v2transport is required (-1) and a bool (-3), and true answers -8
  (no -v2transport); to Python peers listening on loopback, as Core's
  add_outbound_p2p_connection does: 8 outbound-full-relay connections, then -34 "Error:
  Already at capacity for specified connection type."; 2 block-relay-only (their version
  asks for no transactions), then -34; an addr-fetch connection takes the 11th outbound slot
  (a feeler is then refused with -34, Core's outbound limit) and leaves once the peer sent
  it addresses; a feeler gets our version (no transactions asked for) and is dropped as soon
  as the peer's version arrives; disconnectnode frees a slot; with the network off the call
  succeeds and nothing is opened; with -maxconnections=1 only one automatic connection is
  allowed.
- sendmsgtopeer: a message of any type (also unknown, an empty type, an empty payload)
  reaches the peer as given; -1 "Error: Could not send message to peer" for an unknown id
  and for a peer whose handshake is not done; -8 "Error: msg_type too long, max length is
  12" and "Error parsing input for msg"; a 4,000,001-byte message makes node1 drop node0.
- addpeeraddress and getrawaddrman: -30 "Invalid IP address" for "", a name or an address
  with a port; -3 for a non-bool tried; -1 "JSON integer out of range" for the port; an
  address goes into the new table ({"success": true}), again answers {"success": false,
  "error": "failed-adding-to-new"}; with tried it goes into the tried table; tried addresses
  of one network group until one finds its tried slot taken: {"success": false, "error":
  "failed-adding-to-tried"}, and it stays in new; getrawaddrman lists each table as
  "bucket/position" keys (within the tables' bounds, as many as getaddrmaninfo counts) with
  Core's fields (the time is the mock time, the source the address itself); bitnode-cli
  converts port and tried.
- getorphantxs: two children of unknown parents from two Python peers are orphans:
  verbosity 0 (txids), 1 (txid, wtxid, bytes, vsize, vsize_bip141, weight, from), 2 (and
  hex), in Core's order (by wtxid); a peer announcing an orphan by wtxid is added to its
  "from", and asked for the missing parent once the peer it was asked of first is gone; -8 "Invalid verbosity value N", -3 for a boolean
  ("Verbosity was boolean but only integer allowed") and a string; an orphan stays while one
  of its peers is connected, goes with the last, and leaves when its parent comes.
- disconnectnode: -32602 "Only one of address and nodeid should be provided.", -29 "Node not
  found in connected nodes" for an unknown address and id, by nodeid (named, and
  positionally with an empty address) the peer is dropped.
"""

import os
import socket
import time

from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, SCRIPT_TRUE, hash160,
                        segwit_address, sign_p2wpkh)
from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_raises_rpc_error,
                       assert_true, wait_until)
from p2p import MSG_WITNESS_TX, MSG_WTX, MsgAddr, NetAddr, P2PConnection

COIN = 100000000
HIDDEN = ["addconnection", "addpeeraddress", "sendmsgtopeer", "getrawaddrman", "getorphantxs"]
SIGNATURES = {
    "addconnection": 'addconnection "address" "connection_type" v2transport',
    "addpeeraddress": 'addpeeraddress "address" port ( tried )',
    "sendmsgtopeer": 'sendmsgtopeer peer_id "msg_type" "msg"',
    "getrawaddrman": "getrawaddrman",
    "getorphantxs": "getorphantxs ( verbosity )",
}
CAPACITY = "Error: Already at capacity for specified connection type."
ENTRY_KEYS = ["address", "port", "services", "time", "network", "source", "source_network"]


def make_signet_node(node):
    """A framework TestNode (written for regtest) turned into a default-signet node."""
    node.net_dir = os.path.join(node.datadir, "signet")
    with open(os.path.join(node.datadir, "bitnode.conf"), "w") as f:
        f.write("signet=1\nrpcdoccheck=1\nlisten=0\ndnsseed=0\nfixedseeds=0\n[signet]\n"
                "rpcport=%d\nprinttoconsole=0\n" % node.rpc_port)


class FeelerReceiver(P2PConnection):
    """Sends its version only once the node's came, as Core's P2PFeelerReceiver: the node
    drops a feeler as soon as it has the peer's version."""

    def __init__(self):
        super().__init__(version_on_connect=False)

    def on_version(self, msg):
        self.peer_version = msg
        self.send_version()


class NetHiddenRpcTest(BitnodeTestFramework):
    num_nodes = 3

    def set_test_params(self):
        self.extra_args = [["-connect=0", "-test=addrman", "-debug=net", "-debug=mempool"],
                           ["-connect=0", "-debug=net"], []]
        self.start_nodes_at_setup = False

    def run_test(self):
        self.node0, self.node1, signet = self.nodes
        make_signet_node(signet)
        for n in self.nodes:
            n.start()
        self.test_help()
        self.test_addconnection_refusals(signet)
        signet.stop()
        self.test_addconnection_capacity()
        self.test_addconnection_limits()
        self.test_sendmsgtopeer()
        self.test_addpeeraddress()
        self.test_getorphantxs()
        self.test_disconnectnode()

    # --- helpers

    def outbound(self, conn_type, peer=None, node=None, wait_for_verack=True):
        """A Python peer listening on loopback that node (node0) dials with addconnection,
        as Core's add_outbound_p2p_connection does; the connection is up (its handshake done
        with wait_for_verack)."""
        node = node or self.node0
        peer = peer or P2PConnection()
        port = peer.listen()
        address = "127.0.0.1:%d" % port
        assert_equal(node.rpc("addconnection", address, conn_type, False),
                     {"address": address, "connection_type": conn_type})
        peer.wait_for_connect(wait_for_verack=wait_for_verack)
        return peer

    def peer_id(self, node, conn_type=None, addr=None):
        """The id of node's peer of that connection type (the last one) or address."""
        ids = [p["id"] for p in node.rpc("getpeerinfo")
               if (conn_type is None or p["connection_type"] == conn_type) and
               (addr is None or p["addr"] == addr)]
        assert_true(ids, "a peer of type %s addr %s" % (conn_type, addr))
        return ids[-1]

    def types(self, node=None):
        """How many peers of each connection type node has."""
        counts = {}
        for p in (node or self.node0).rpc("getpeerinfo"):
            counts[p["connection_type"]] = counts.get(p["connection_type"], 0) + 1
        return counts

    def close_all(self, peers, node=None):
        for p in peers:
            p.close()
        wait_until(lambda: (node or self.node0).rpc("getpeerinfo") == [], timeout=30,
                   what="every peer gone")

    # --- tests

    def test_help(self):
        self.log("help: the hidden methods are left out of the overview, help METHOD works")
        n = self.node0
        lines = n.rpc("help").split("\n")
        for m in HIDDEN:
            assert_true(not any(line.split(" ")[0] == m for line in lines), m + " is hidden")
            assert_equal(n.rpc("help", m).split("\n")[0], SIGNATURES[m])
        assert_in("disconnectnode", [line.split(" ")[0] for line in lines])

    def test_addconnection_refusals(self, signet):
        self.log("addconnection: regtest only, Core's refusals of its arguments")
        assert_raises_rpc_error(-1, "addconnection is for regression testing (-regtest mode) "
                                "only.", signet.rpc, "addconnection", "127.0.0.1:1",
                                "outbound-full-relay", False)
        n = self.node0
        e = assert_raises_rpc_error(-8, None, n.rpc, "addconnection", "127.0.0.1:1", "manual",
                                    False)
        assert_equal(e.message.split("\n")[0], SIGNATURES["addconnection"])
        assert_raises_rpc_error(-8, None, n.rpc, "addconnection", "127.0.0.1:1", "inbound",
                                False)
        assert_raises_rpc_error(-1, SIGNATURES["addconnection"], n.rpc, "addconnection",
                                "127.0.0.1:1", "feeler")
        assert_raises_rpc_error(-3, "is not of expected type bool", n.rpc, "addconnection",
                                "127.0.0.1:1", "feeler", "false")
        assert_raises_rpc_error(-8, "Error: Adding v2transport connections requires "
                                "-v2transport init flag to be set.", n.rpc, "addconnection",
                                "127.0.0.1:1", "outbound-full-relay", True)
        assert_equal(n.rpc("getpeerinfo"), [])
        self.log("a known type with whitespace around it is trimmed, as in Core")
        peer = P2PConnection()
        address = "127.0.0.1:%d" % peer.listen()
        assert_equal(n.rpc("addconnection", address, " \tblock-relay-only\n", False),
                     {"address": address, "connection_type": "block-relay-only"})
        peer.wait_for_connect()
        assert_equal(self.types(), {"block-relay-only": 1})
        self.close_all([peer])

    def test_addconnection_capacity(self):
        n = self.node0
        self.log("addconnection: 8 outbound-full-relay connections, then Core's -34")
        full = [self.outbound("outbound-full-relay") for _ in range(8)]
        for p in full:
            p.sync_with_ping()
            assert_equal(p.peer_version.relay, True)
        assert_equal(self.types(), {"outbound-full-relay": 8})
        assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1",
                                "outbound-full-relay", False)
        self.log("2 block-relay-only connections (no transactions asked for), then -34")
        blocks = [self.outbound("block-relay-only") for _ in range(2)]
        for p in blocks:
            p.sync_with_ping()
            assert_equal(p.peer_version.relay, False)
        assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1",
                                "block-relay-only", False)
        assert_equal(self.types(), {"outbound-full-relay": 8, "block-relay-only": 2})

        self.log("an addr-fetch connection takes the last outbound slot: a feeler is refused")
        fetch = self.outbound("addr-fetch")
        fetch.wait_for("getaddr", timeout=30)
        assert_equal(self.types()["addr-fetch"], 1)
        assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1", "feeler",
                                False)
        assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1",
                                "addr-fetch", False)
        self.log("the addr-fetch peer leaves once it sent addresses")
        fetch.send_message(MsgAddr([NetAddr("23.1.2.%d" % i, 8333, 9, int(time.time()))
                                    for i in (1, 2)]))
        fetch.wait_for_disconnect(timeout=30)
        wait_until(lambda: "addr-fetch" not in self.types(), timeout=30, what="addr-fetch gone")

        self.log("a feeler gets our version and is dropped once the peer's version came")
        feeler = self.outbound("feeler", peer=FeelerReceiver(), wait_for_verack=False)
        feeler.wait_for_disconnect(timeout=30)
        assert_equal(feeler.message_count["version"], 1)
        assert_equal(feeler.last_message["version"].relay, False)
        assert_equal(feeler.message_count["verack"], 0)
        wait_until(lambda: "feeler" not in self.types(), timeout=30, what="feeler gone")

        self.log("disconnectnode frees a slot for the same type")
        victim = self.peer_id(n, "outbound-full-relay")
        assert_equal(n.rpc("disconnectnode", nodeid=victim), None)
        wait_until(lambda: self.types().get("outbound-full-relay") == 7, timeout=30,
                   what="one full-relay peer gone")
        full.append(self.outbound("outbound-full-relay"))
        assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1",
                                "outbound-full-relay", False)
        self.close_all(full + blocks)

        self.log("with the network off the call succeeds and nothing is opened")
        n.rpc("setnetworkactive", False)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as idle:
            idle.bind(("127.0.0.1", 0))
            idle.listen(1)
            idle.settimeout(1)
            address = "127.0.0.1:%d" % idle.getsockname()[1]
            assert_equal(n.rpc("addconnection", address, "outbound-full-relay", False),
                         {"address": address, "connection_type": "outbound-full-relay"})
            try:
                idle.accept()[0].close()
                raise AssertionError("a connection was opened while the network is off")
            except socket.timeout:
                pass
        assert_equal(n.rpc("getpeerinfo"), [])
        n.rpc("setnetworkactive", True)

    def test_addconnection_limits(self):
        self.log("-maxconnections=1: one automatic connection at most, of any type")
        n = self.node0
        n.stop()
        n.start(["-maxconnections=1"])
        assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1",
                                "block-relay-only", False)
        peer = self.outbound("outbound-full-relay")
        for t in ("outbound-full-relay", "feeler", "addr-fetch"):
            assert_raises_rpc_error(-34, CAPACITY, n.rpc, "addconnection", "127.0.0.1:1", t,
                                    False)
        self.close_all([peer])
        n.stop()
        # The addr-fetch peer's addresses go, so the address manager starts empty (Core's
        # clear_addrman).
        os.remove(os.path.join(n.net_dir, "peers.dat"))
        n.start()

    def test_sendmsgtopeer(self):
        n = self.node0
        self.log("sendmsgtopeer: what is sent reaches the peer as given")
        peer = P2PConnection().connect(n.p2p_port)
        peer.sync_with_ping()
        pid = self.peer_id(n, "inbound")
        for msg_type, payload in (("unknown", b"\xff\x00\xff"), ("", b"\x01"), ("xyz", b""),
                                  ("abcdefghijkl", b"\x02" * 300)):
            mark = peer.log_index()
            assert_equal(n.rpc("sendmsgtopeer", pid, msg_type, payload.hex()), {})
            got = peer.wait_for(lambda: next((m for m in peer.messages[mark:]
                                              if m.command == msg_type), None), timeout=30,
                                desc="the %r message" % msg_type)
            assert_equal(got.payload, payload)
        sent = n.rpc("getpeerinfo")[0]["bytessent_per_msg"]
        assert_true(sent.get("*other*", 0) >= 4 * 24 + 304, "counted as *other* %r" % sent)

        self.log("sendmsgtopeer: Core's errors")
        assert_raises_rpc_error(-1, "Error: Could not send message to peer", n.rpc,
                                "sendmsgtopeer", pid + 100, "addr", "ff")
        assert_raises_rpc_error(-8, "Error: msg_type too long, max length is 12", n.rpc,
                                "sendmsgtopeer", pid, "long_msg_type", "ff")
        for bad in ("f", "zz", "ff ff"):
            assert_raises_rpc_error(-8, "Error parsing input for msg", n.rpc, "sendmsgtopeer",
                                    pid, "addr", bad)
        assert_raises_rpc_error(-3, None, n.rpc, "sendmsgtopeer", "0", "addr", "ff")
        self.log("a peer whose handshake is not done cannot be sent to (Core's ForNode)")
        silent = P2PConnection(handshake=False).connect(n.p2p_port)
        wait_until(lambda: len(n.rpc("getpeerinfo")) == 2, timeout=30, what="second peer")
        early = max(p["id"] for p in n.rpc("getpeerinfo"))
        assert_raises_rpc_error(-1, "Error: Could not send message to peer", n.rpc,
                                "sendmsgtopeer", early, "ping", "00" * 8)
        self.close_all([peer, silent])

        self.log("an oversized message makes the receiver (node1) drop the connection")
        n1 = self.node1
        address = "127.0.0.1:%d" % n1.p2p_port
        assert_equal(n.rpc("addconnection", address, "outbound-full-relay", False),
                     {"address": address, "connection_type": "outbound-full-relay"})
        wait_until(lambda: any(p["version"] for p in n.rpc("getpeerinfo")) and
                   len(n1.rpc("getpeerinfo")) == 1, timeout=30, what="node0 -> node1")
        to1 = self.peer_id(n, "outbound-full-relay")
        wait_until(lambda: self.try_send(to1), timeout=30, what="handshake with node1")
        assert_equal(n.rpc("sendmsgtopeer", to1, "addr", "00" * 4000001), {})
        wait_until(lambda: n.rpc("getpeerinfo") == [] and n1.rpc("getpeerinfo") == [],
                   timeout=30, what="node1 dropped node0")

    def try_send(self, peer_id):
        try:
            self.node0.rpc("sendmsgtopeer", peer_id, "ping", "00" * 8)
            return True
        except Exception:
            return False

    def test_addpeeraddress(self):
        n = self.node0
        mock = int(time.time())
        n.rpc("setmocktime", mock)
        self.log("addpeeraddress: Core's refusals")
        for bad in ("", "not_an_ip", "1.2.3.4:8333", "[::1]:8333", "localhost"):
            assert_raises_rpc_error(-30, "Invalid IP address", n.rpc, "addpeeraddress", bad,
                                    8333)
        assert_raises_rpc_error(-3, "is not of expected type bool", n.rpc, "addpeeraddress",
                                "1.2.3.4", 1234, "True")
        for port in (-1, 65536):
            assert_raises_rpc_error(-1, "JSON integer out of range", n.rpc, "addpeeraddress",
                                    "1.2.3.4", port)
        assert_equal(n.rpc("getrawaddrman"), {"new": {}, "tried": {}})

        self.log("an address into the new table, then refused there and for tried")
        assert_equal(n.rpc("addpeeraddress", "1.0.0.0", 8333, False), {"success": True})
        raw = n.rpc("getrawaddrman")
        assert_equal(raw["tried"], {})
        assert_equal(len(raw["new"]), 1)
        self.check_entry(raw["new"], "1.0.0.0", 8333, mock, 1024)
        for tried in (True, False):
            assert_equal(n.rpc("addpeeraddress", "1.0.0.0", 8333, tried),
                         {"success": False, "error": "failed-adding-to-new"})
        self.log("an address into the tried table; IPv6 too")
        assert_equal(n.rpc("addpeeraddress", address="1.2.3.4", port=8333, tried=True),
                     {"success": True})
        raw = n.rpc("getrawaddrman")
        assert_equal(len(raw["new"]), 1)
        self.check_entry(raw["tried"], "1.2.3.4", 8333, mock, 256)
        assert_equal(n.rpc("addpeeraddress", "1.2.3.4", 8333, False),
                     {"success": False, "error": "failed-adding-to-new"})
        assert_equal(n.rpc("addpeeraddress", "2803:0:1234:abcd::1", 45324),
                     {"success": True})
        self.check_entry(n.rpc("getrawaddrman")["new"], "2803:0:1234:abcd::1", 45324, mock,
                         1024, "ipv6")
        assert_equal(n.rpc("addpeeraddress", "[1233:3432:2434:2343:3234:2345:6546:4534]", 8333,
                           True), {"success": True})
        self.log("an unroutable address is not kept")
        for bad in ("10.0.0.1", "0.0.0.0", "fc00:1:2:3:4:5:6:7"):
            assert_equal(n.rpc("addpeeraddress", bad, 8333),
                         {"success": False, "error": "failed-adding-to-new"})

        self.log("tried addresses of one group until one finds its tried slot taken")
        collided = None
        for i in range(2000):
            a = "1.2.%d.%d" % (5 + i // 250, 1 + i % 250)
            got = n.rpc("addpeeraddress", a, 8333, True)
            if not got["success"]:
                collided = a
                assert_equal(got, {"success": False, "error": "failed-adding-to-tried"})
                break
        assert_true(collided, "a tried collision within one /16")
        info = n.rpc("getaddrmaninfo")["all_networks"]
        raw = n.rpc("getrawaddrman")
        assert_in(collided, [e["address"] for e in raw["new"].values()])
        assert_true(collided not in [e["address"] for e in raw["tried"].values()],
                    "the colliding address stays in new")
        assert_equal((len(raw["new"]), len(raw["tried"])), (info["new"], info["tried"]))
        for table, buckets in (("new", 1024), ("tried", 256)):
            for key, e in raw[table].items():
                self.check_key(key, buckets)
                assert_equal(list(e.keys()), ENTRY_KEYS)
                assert_equal((e["source"], e["source_network"]), (e["address"], e["network"]))
                assert_equal((e["services"], e["time"]), (9, mock))

        self.log("bitnode-cli converts addpeeraddress's port and tried")
        r = n.cli("addpeeraddress", "3.4.5.6", "8333", "true", check=True)
        assert_in('"success": true', r.stdout)
        assert_in("3.4.5.6", [e["address"] for e in n.rpc("getrawaddrman")["tried"].values()])
        n.rpc("setmocktime", 0)

    def check_key(self, key, buckets):
        bucket, position = key.split("/")
        assert_true(0 <= int(bucket) < buckets and 0 <= int(position) < 64, "key " + key)

    def check_entry(self, table, address, port, mock, buckets, network="ipv4"):
        """table holds address once, with Core's fields: announced by itself at mock time."""
        keys = [k for k, e in table.items() if e["address"] == address]
        assert_equal(len(keys), 1)
        self.check_key(keys[0], buckets)
        assert_equal(table[keys[0]], {"address": address, "port": port, "services": 9,
                                      "time": mock, "network": network, "source": address,
                                      "source_network": network})

    # --- getorphantxs

    def coinbase_of(self, node, h):
        cb = node.rpc("getblock", h, 2)["tx"][0]
        return (OutPoint(bytes.fromhex(cb["txid"])[::-1], 0),
                int(round(cb["vout"][0]["value"] * COIN)))

    def spend(self, coin, fee):
        outpoint, value = coin
        tx = Tx([TxIn(outpoint, b"", 0xFFFFFFFD)], [TxOut(value - fee, P2WSH_TRUE)])
        sign_p2wpkh(tx, 0, self.key, value)
        return tx

    def child_of(self, parent):
        return Tx([TxIn(parent.outpoint(0), b"", 0xFFFFFFFD, [SCRIPT_TRUE])],
                  [TxOut(parent.vout[0].value - 1000, P2WSH_TRUE)])

    def orphans(self, verbosity=None):
        n = self.node0
        return n.rpc("getorphantxs") if verbosity is None else n.rpc("getorphantxs", verbosity)

    def check_orphan(self, got, tx, froms, verbosity):
        want = {"txid": tx.txid_hex, "wtxid": tx.wtxid[::-1].hex(),
                "bytes": len(tx.serialize()), "vsize": (tx.weight() + 3) // 4,
                "vsize_bip141": (tx.weight() + 3) // 4, "weight": tx.weight(),
                "from": sorted(froms)}
        if verbosity == 2:
            want["hex"] = tx.hex()
        assert_equal(got, want)
        assert_equal(list(got.keys()), list(want.keys()))

    def test_getorphantxs(self):
        n = self.node0
        self.log("getorphantxs: a chain to spend from")
        self.key = Key(0x5151)
        addr = segwit_address("bcrt", 0, hash160(self.key.pubkey))
        hashes = n.rpc("generatetoaddress", 103, addr)
        coins = [self.coinbase_of(n, h) for h in hashes[:3]]
        assert_equal(self.orphans(), [])
        assert_equal(self.orphans(2), [])

        self.log("two children of unknown parents, from two peers, are orphans")
        parents = [self.spend(c, 1000) for c in coins[:2]]
        children = [self.child_of(p) for p in parents]
        peers = [P2PConnection().connect(n.p2p_port) for _ in range(2)]
        ids = []
        for peer, child, parent in zip(peers, children, parents):
            peer.sync_with_ping()
            ids.append(self.peer_id(n, addr="%s:%d" % peer.sock.getsockname()[:2]))
            mark = peer.log_index()
            peer.send_tx(child)
            got = peer.wait_for("getdata", since=mark, timeout=30)
            assert_equal([(t, h) for t, h in got.inv], [(MSG_WITNESS_TX, parent.txid)])
        assert_equal(n.rpc("getrawmempool"), [])
        by_wtxid = sorted(zip(children, ids), key=lambda c: c[0].wtxid)
        assert_equal(self.orphans(), [c.txid_hex for c, _ in by_wtxid])
        assert_equal(self.orphans(0), [c.txid_hex for c, _ in by_wtxid])
        for verbosity in (1, 2):
            got = self.orphans(verbosity)
            assert_equal(len(got), 2)
            for g, (child, pid) in zip(got, by_wtxid):
                self.check_orphan(g, child, [pid], verbosity)
        assert_equal(n.rpc("getorphantxs", verbosity=1), self.orphans(1))

        self.log("getorphantxs: Core's refusals of the verbosity")
        for bad in (-1, 3):
            assert_raises_rpc_error(-8, "Invalid verbosity value %d" % bad, self.orphans, bad)
        for bad in (True, False):
            assert_raises_rpc_error(-3, "Verbosity was boolean but only integer allowed",
                                    self.orphans, bad)
        assert_raises_rpc_error(-3, "JSON value of type string is not of expected type number",
                                self.orphans, "1")
        assert_raises_rpc_error(-1, "JSON integer out of range", self.orphans, 1.5)

        self.log("a peer announcing an orphan by wtxid is one more it may come from")
        mark = peers[1].log_index()
        peers[1].send_inv([(MSG_WTX, children[0].wtxid)])
        peers[1].sync_with_ping()
        entry = [o for o in self.orphans(1) if o["txid"] == children[0].txid_hex][0]
        self.check_orphan(entry, children[0], ids, 1)
        self.log("announcing it again changes nothing")
        peers[1].send_inv([(MSG_WTX, children[0].wtxid)])
        peers[1].sync_with_ping()
        entry = [o for o in self.orphans(1) if o["txid"] == children[0].txid_hex][0]
        assert_equal(entry["from"], sorted(ids))

        self.log("an orphan stays while one of its peers is connected, which is asked for the "
                 "missing parent once the peer asked first is gone (Core's request tracker)")
        assert_true(not any(m.command == "getdata" for m in peers[1].messages[mark:]),
                    "the parent is asked of one peer at a time")
        peers[0].close()
        wait_until(lambda: len(n.rpc("getpeerinfo")) == 1, timeout=30, what="peer 0 gone")
        got = peers[1].wait_for("getdata", since=mark, timeout=30)
        assert_equal([(t, h) for t, h in got.inv], [(MSG_WITNESS_TX, parents[0].txid)])
        got = self.orphans(1)
        assert_equal(sorted(o["txid"] for o in got), sorted(c.txid_hex for c in children))
        assert_equal([o["from"] for o in got], [[ids[1]], [ids[1]]])
        self.log("its parent comes: it leaves the orphans for the pool")
        peers[1].send_tx(parents[0])
        wait_until(lambda: children[0].txid_hex in n.rpc("getrawmempool"), timeout=30,
                   what="child 0 accepted")
        assert_equal(self.orphans(), [children[1].txid_hex])
        self.log("the last peer of an orphan leaves: the orphan goes")
        peers[1].close()
        wait_until(lambda: n.rpc("getpeerinfo") == [], timeout=30, what="peer 1 gone")
        wait_until(lambda: self.orphans() == [], timeout=30, what="orphans gone")
        n.rpc("generatetoaddress", 1, addr)
        assert_equal(n.rpc("getrawmempool"), [])

    def test_disconnectnode(self):
        n = self.node0
        self.log("disconnectnode: Core's errors, and by nodeid")
        peer = P2PConnection().connect(n.p2p_port)
        peer.sync_with_ping()
        info = n.rpc("getpeerinfo")[0]
        assert_raises_rpc_error(-32602, "Only one of address and nodeid should be provided.",
                                n.rpc, "disconnectnode", address=info["addr"], nodeid=info["id"])
        assert_raises_rpc_error(-32602, "Only one of address and nodeid should be provided.",
                                n.rpc, "disconnectnode")
        assert_raises_rpc_error(-29, "Node not found in connected nodes", n.rpc,
                                "disconnectnode", address="221B Baker Street")
        assert_raises_rpc_error(-29, "Node not found in connected nodes", n.rpc,
                                "disconnectnode", "", info["id"] + 1000)
        assert_equal(n.rpc("disconnectnode", "", info["id"]), None)
        peer.wait_for_disconnect(timeout=30)
        wait_until(lambda: n.rpc("getpeerinfo") == [], timeout=30, what="peer dropped")
        peer.close()
        peer = P2PConnection().connect(n.p2p_port)
        peer.sync_with_ping()
        assert_equal(n.rpc("disconnectnode", nodeid=n.rpc("getpeerinfo")[0]["id"]), None)
        peer.wait_for_disconnect(timeout=30)
        peer.close()


if __name__ == "__main__":
    NetHiddenRpcTest().main()
