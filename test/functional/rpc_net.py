#!/usr/bin/env python3
"""The network RPCs (Core's rpc/net.cpp, and getblockfrompeer) against two bitnoded nodes and
Python peers on loopback, with Core's fields, types, errors and messages.

node0 runs with -connect=0 (it never dials the made-up addresses it hears of) and
-whitelist=addr@127.0.0.1 (so that, as in Core, the addresses of an inbound Python peer are
not rate-limited) and -test=addrman (Core's deterministic address manager: which made-up
addresses share a bucket slot does not change from run to run); node1 with -connect=0 and
no permissions. Every result is checked
against its declaration (-rpcdoccheck=1 in the framework's config).

- getconnectioncount, getnetworkinfo (subversion, protocol version, local services, the
  networks list, connections_in / connections_out) and getnettotals (the counters grow);
- getpeerinfo: Core's keys and their types, for an inbound Python peer (exact per-message
  byte counts of what it sent, its services, user agent, permissions "addr", no address
  relay before it sends addresses) and for node1 connected with addnode (connection_type
  "manual" on node0, "inbound" on node1, addresses and bind addresses matching across the
  two nodes);
- ping: a ping goes to every peer and pingtime / minping show afterwards; a peer that
  never answers shows pingwait and no pingtime;
- addnode add / remove / onetry and their errors (-23, also for the same address written
  another way; -24, -8, -1), getaddednodeinfo with and without a node (-24),
  disconnectnode by address, by nodeid (positional and named) and its errors (-29,
  -32602);
- getnodeaddresses from an addrv2 of made-up public IPv4 / IPv6 addresses: count, network
  filter (any case), Core's fields and errors (-8); an address without NETWORK /
  NETWORK_LIMITED is not kept; getaddrmaninfo agrees; addr_relay_enabled, addr_processed
  and addr_rate_limited (on node1, Core's token bucket lets one address of ten through);
- getblockfrompeer: a Python peer announces a header of a block the node lacks (the node
  asks it for the block; it never answers); getblockfrompeer with the peer that holds the
  block (a BlockServer that never announced it) fetches it and getblock works; Core's
  errors (-1): "Block header missing", "Peer does not exist", "Pre-SegWit peer", "Block
  already downloaded", and -8 for a malformed hash; asking the announcing peer again is
  not refused (Core forgets the earlier request and asks again);
- setban add (the peers from 127.0.0.1 are disconnected at once, a new connection is
  refused), remove, subnets in both notations, IPv6 (also in brackets), bantime and
  absolute, the errors (-23; -30 for unparsable, unspecified and non-contiguous-mask
  subnets; -8; -1), listbanned's fields and Core's order, clearbanned, banlist.json and
  the bans surviving a restart;
- setnetworkactive false (every peer dropped, networkactive false, new connections
  refused, no outbound connection) and true again;
- bitnode-cli converts the numeric and boolean arguments of these methods.
"""

import json
import os
import socket
import time

import p2p
from blocktools import REGTEST_GENESIS, REGTEST_GENESIS_TIME, ChainBuilder
from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_raises_rpc_error,
                       assert_true, wait_until)

# getpeerinfo: the keys Core always sets, and those it leaves out when unknown.
PEER_KEYS = {
    "id": int, "addr": str, "network": str, "services": str, "servicesnames": list,
    "relaytxes": bool, "last_inv_sequence": int, "inv_to_send": int, "lastsend": int,
    "lastrecv": int, "last_transaction": int, "last_block": int, "bytessent": int,
    "bytesrecv": int, "conntime": int, "timeoffset": int, "version": int, "subver": str,
    "inbound": bool, "bip152_hb_to": bool, "bip152_hb_from": bool, "presynced_headers": int,
    "synced_headers": int, "synced_blocks": int, "inflight": list, "addr_relay_enabled": bool,
    "addr_processed": int, "addr_rate_limited": int, "permissions": list,
    "minfeefilter": (int, float), "bytessent_per_msg": dict, "bytesrecv_per_msg": dict,
    "connection_type": str, "transport_protocol_type": str, "session_id": str,
}
PEER_OPTIONAL_KEYS = {"addrbind": str, "addrlocal": str, "mapped_as": int,
                      "pingtime": float, "minping": float, "pingwait": float}
NETWORKS = ["ipv4", "ipv6", "onion", "i2p", "cjdns"]
SERVICES = p2p.NODE_NETWORK | p2p.NODE_WITNESS
DEFAULT_BANTIME = 24 * 60 * 60
# Made-up public addresses an addrv2 announces: never dialled (-connect=0).
MADE_UP_V4 = ["23.%d.45.67" % (10 + i) for i in range(5)]
MADE_UP_V6 = ["2a01:4f8:%x::5" % (0x100 + i) for i in range(2)]


class SilentPeer(p2p.P2PConnection):
    """Never answers pings (the node then shows pingwait)."""

    def on_ping(self, msg):
        pass


class QuietServer(p2p.BlockServer):
    """Serves the blocks it holds when asked for them, but never announces them: it answers
    getheaders with nothing, so the node only asks it with getblockfrompeer."""

    def on_getheaders(self, msg):
        self.send_headers([])


def local_addr(peer):
    """host:port of our end of a Python peer's connection: its addr in getpeerinfo."""
    host, port = peer.sock.getsockname()[:2]
    return "%s:%d" % (host, port)


class RPCNetTest(BitnodeTestFramework):
    num_nodes = 2
    extra_args = [["-connect=0", "-whitelist=addr@127.0.0.1", "-debug=net", "-test=addrman"],
                  ["-connect=0", "-debug=net"]]

    # --- helpers

    def peer(self, cls=p2p.P2PConnection, node=None, **kwargs):
        """A Python peer connected to node (node0), its handshake done and processed."""
        p = cls(**kwargs).connect((node or self.node0).p2p_port)
        p.sync_with_ping()
        return p

    def peer_info(self, node, addr):
        """node's getpeerinfo entry whose addr is addr, or None."""
        for info in node.rpc("getpeerinfo"):
            if info["addr"] == addr:
                return info
        return None

    def check_peer_types(self, info):
        """Core's keys, each of its type; nothing else."""
        for key, typ in PEER_KEYS.items():
            assert_in(key, info)
            assert_true(isinstance(info[key], typ) and not (typ is int and isinstance(
                info[key], bool)), "%s is %r" % (key, info[key]))
        for key in info:
            if key not in PEER_KEYS:
                assert_in(key, PEER_OPTIONAL_KEYS)
                typ = PEER_OPTIONAL_KEYS[key]
                assert_true(isinstance(info[key], typ), "%s is %r" % (key, info[key]))
        assert_in(info["connection_type"], ["outbound-full-relay", "block-relay-only",
                                            "inbound", "manual", "addr-fetch", "feeler",
                                            "private-broadcast"])
        assert_equal(len(info["services"]), 16)
        int(info["services"], 16)
        for counts in (info["bytessent_per_msg"], info["bytesrecv_per_msg"]):
            assert_true(all(isinstance(v, int) and v > 0 for v in counts.values()),
                        "per-message counts %r" % counts)
        assert_true(all(isinstance(h, int) for h in info["inflight"]), "inflight heights")

    def refused(self, port):
        """A new connection to port is closed before any handshake."""
        p = p2p.P2PConnection().connect(port, wait_for_verack=False)
        p.wait_for_disconnect(timeout=10)
        assert_true(not p.verack_received and p.peer_version is None,
                    "no version or verack from the node")
        p.close()

    def wait_no_peers(self, node):
        wait_until(lambda: node.rpc("getconnectioncount") == 0, timeout=10,
                   what="node%d without peers" % node.index)

    # --- the test

    def run_test(self):
        self.node0, self.node1 = self.nodes
        self.test_counts_and_networkinfo()
        self.test_python_peer()
        self.test_ping()
        self.test_addnode()
        self.test_disconnectnode()
        self.test_getnodeaddresses()
        self.test_getblockfrompeer()
        self.test_setban()
        self.test_setnetworkactive()
        self.test_cli()
        self.python_peer.close()

    def test_counts_and_networkinfo(self):
        node = self.node0
        self.log("getconnectioncount, getnetworkinfo and getnettotals without peers")
        assert_equal(node.rpc("getconnectioncount"), 0)
        assert_equal(node.rpc("getpeerinfo"), [])
        info = node.rpc("getnetworkinfo")
        assert_true(info["subversion"].startswith("/bitnode:") and
                    info["subversion"].endswith("/"), info["subversion"])
        assert_equal(info["protocolversion"], 70017)
        assert_true(isinstance(info["version"], int), "version")
        services = int(info["localservices"], 16)
        assert_equal(len(info["localservices"]), 16)
        assert_in("NETWORK", info["localservicesnames"])
        assert_in("WITNESS", info["localservicesnames"])
        assert_true(services & SERVICES == SERVICES, "NETWORK and WITNESS bits")
        assert_equal(info["networkactive"], True)
        assert_equal((info["connections"], info["connections_in"], info["connections_out"]),
                     (0, 0, 0))
        assert_equal([n["name"] for n in info["networks"]], NETWORKS)
        for n in info["networks"]:
            assert_equal(n["limited"], not n["reachable"])
            assert_equal(n["proxy"], "")
            assert_true(isinstance(n["proxy_randomize_credentials"], bool), "randomize")
        reachable = {n["name"]: n["reachable"] for n in info["networks"]}
        assert_equal((reachable["ipv4"], reachable["ipv6"]), (True, True))
        assert_equal(info["localaddresses"], [])
        assert_true(isinstance(info["warnings"], list), "warnings")
        assert_equal(sorted(info["inv_buckets"]), ["inbound", "outbound"])
        self.totals = node.rpc("getnettotals")
        now_ms = time.time() * 1000
        assert_true(abs(self.totals["timemillis"] - now_ms) < 60_000, "timemillis is now")
        assert_equal(self.totals["uploadtarget"]["target"], 0)
        assert_equal(self.totals["uploadtarget"]["target_reached"], False)

    def test_python_peer(self):
        node = self.node0
        self.log("getpeerinfo for an inbound Python peer")
        t0 = int(time.time())
        self.python_peer = p = self.peer()
        assert_equal(node.rpc("getconnectioncount"), 1)
        info = node.rpc("getnetworkinfo")
        assert_equal((info["connections"], info["connections_in"], info["connections_out"]),
                     (1, 1, 0))
        peers = node.rpc("getpeerinfo")
        assert_equal(len(peers), 1)
        pi = peers[0]
        self.check_peer_types(pi)
        self.python_peer_id = pi["id"]
        assert_equal(pi["addr"], local_addr(p))
        assert_equal(pi["addrbind"], "127.0.0.1:%d" % node.p2p_port)
        assert_equal(pi["network"], "not_publicly_routable")
        assert_equal(pi["services"], "%016x" % SERVICES)
        assert_equal(pi["servicesnames"], ["NETWORK", "WITNESS"])
        assert_equal(pi["relaytxes"], True)
        assert_equal(pi["version"], 70016)
        assert_equal(pi["subver"], p2p.USER_AGENT.decode())
        assert_equal(pi["inbound"], True)
        assert_equal(pi["connection_type"], "inbound")
        assert_equal(pi["transport_protocol_type"], "v1")
        assert_equal(pi["session_id"], "")
        assert_equal(pi["permissions"], ["addr"])  # -whitelist=addr@127.0.0.1
        assert_equal((pi["synced_headers"], pi["synced_blocks"], pi["presynced_headers"]),
                     (-1, -1, -1))
        assert_equal(pi["inflight"], [])
        assert_equal((pi["last_block"], pi["last_transaction"]), (0, 0))
        # An inbound peer takes part in address relay once it sends addr / addrv2 / getaddr.
        assert_equal(pi["addr_relay_enabled"], False)
        assert_equal((pi["addr_processed"], pi["addr_rate_limited"]), (0, 0))
        assert_true(t0 - 2 <= pi["conntime"] <= time.time() + 2, "conntime is now")
        assert_true(pi["lastsend"] >= pi["conntime"] and pi["lastrecv"] >= pi["conntime"],
                    "lastsend / lastrecv after conntime")
        assert_true(pi["bytessent"] > 0 and pi["bytesrecv"] > 0, "bytes counted")
        # What the peer sent, header (24 bytes) included, as Core counts it.
        version_size = 24 + len(p2p.MsgVersion(user_agent=p2p.USER_AGENT).serialize())
        recv = pi["bytesrecv_per_msg"]
        assert_equal(recv["version"], version_size)
        assert_equal((recv["verack"], recv["wtxidrelay"], recv["sendaddrv2"]), (24, 24, 24))
        assert_equal(recv["sendcmpct"], 24 + 9)
        assert_equal(recv["ping"], 32 * p.sent_count["ping"])
        assert_equal(sum(recv.values()), pi["bytesrecv"])
        sent = pi["bytessent_per_msg"]
        assert_in("version", sent)
        assert_equal((sent["verack"], sent["sendaddrv2"], sent["wtxidrelay"]), (24, 24, 24))
        assert_equal(sent["pong"], 32 * p.sent_count["ping"])

        self.log("getnettotals grows with the traffic")
        totals = node.rpc("getnettotals")
        assert_true(totals["totalbytesrecv"] >= self.totals["totalbytesrecv"] + pi["bytesrecv"],
                    "received bytes counted")
        assert_true(totals["totalbytessent"] > self.totals["totalbytessent"], "sent bytes")
        p.sync_with_ping()
        later = node.rpc("getnettotals")
        assert_true(later["totalbytesrecv"] >= totals["totalbytesrecv"] + 32, "a ping more")
        assert_true(later["totalbytessent"] >= totals["totalbytessent"] + 32, "a pong more")

    def test_ping(self):
        node = self.node0
        p = self.python_peer
        self.log("ping: every peer is pinged, pingtime / minping show; pingwait while unanswered")
        silent = self.peer(SilentPeer)
        silent_addr = local_addr(silent)
        p.wait_for("ping", timeout=10)  # the ping after the handshake
        mark_p = p.log_index()
        assert_equal(node.rpc("ping"), None)
        p.wait_for("ping", since=mark_p, timeout=10, desc="a ping after the RPC")

        def answered():
            info = self.peer_info(node, local_addr(p))
            return "pingtime" in info and "pingwait" not in info and info
        wait_until(answered, timeout=10, what="pingtime of the Python peer")
        info = answered()
        self.check_peer_types(info)
        assert_true(0 < info["pingtime"] < 10, "pingtime %r" % info["pingtime"])
        assert_true(0 < info["minping"] <= info["pingtime"], "minping %r" % info["minping"])
        silent.wait_for(lambda: any(m.command == "ping" for m in silent.messages),
                        timeout=10, desc="a ping to the silent peer")
        info = self.peer_info(node, silent_addr)
        self.check_peer_types(info)
        assert_true(info.get("pingwait", 0) > 0, "pingwait %r" % info.get("pingwait"))
        assert_true("pingtime" not in info and "minping" not in info, "no ping time yet")
        silent.close()
        wait_until(lambda: self.peer_info(node, silent_addr) is None, timeout=10,
                   what="the silent peer gone")

    def test_addnode(self):
        n0, n1 = self.node0, self.node1
        target = "127.0.0.1:%d" % n1.p2p_port
        self.target = target
        self.log("addnode add: node0 connects to node1 (manual / inbound)")
        assert_equal(n0.rpc("addnode", target, "add"), None)
        wait_until(lambda: (self.peer_info(n0, target) or {}).get("version") == 70017 and
                   n1.rpc("getconnectioncount") == 1, timeout=20, what="node0 -> node1")
        assert_raises_rpc_error(-23, "Error: Node already added", n0.rpc, "addnode", target,
                                "add")
        out = self.peer_info(n0, target)
        wait_until(lambda: (self.peer_info(n1, out["addrbind"]) or {}).get("version") == 70017,
                   timeout=10, what="node1 lists node0")
        inb = self.peer_info(n1, out["addrbind"])
        for info in (out, inb):
            self.check_peer_types(info)
            assert_true(info["subver"].startswith("/bitnode:"), info["subver"])
            assert_equal(info["version"], 70017)
            assert_equal(info["network"], "not_publicly_routable")
            assert_equal(info["transport_protocol_type"], "v1")
            assert_equal(info["permissions"], [])
        assert_equal((out["inbound"], out["connection_type"]), (False, "manual"))
        assert_equal((inb["inbound"], inb["connection_type"]), (True, "inbound"))
        assert_equal(inb["addrbind"], target)
        assert_equal(out["services"], n1.rpc("getnetworkinfo")["localservices"])
        assert_equal(inb["services"], n0.rpc("getnetworkinfo")["localservices"])
        assert_equal(n0.rpc("getconnectioncount"), 2)
        info = n0.rpc("getnetworkinfo")
        assert_equal((info["connections"], info["connections_in"], info["connections_out"]),
                     (2, 1, 1))
        info = n1.rpc("getnetworkinfo")
        assert_equal((info["connections_in"], info["connections_out"]), (1, 0))

        self.log("getaddednodeinfo, with and without a node")
        added = [{"addednode": target, "connected": True,
                  "addresses": [{"address": target, "connected": "outbound"}]}]
        assert_equal(n0.rpc("getaddednodeinfo"), added)
        assert_equal(n0.rpc("getaddednodeinfo", target), added)
        assert_raises_rpc_error(-24, "Error: Node has not been added.", n0.rpc,
                                "getaddednodeinfo", "127.0.0.1:1")
        assert_equal(n1.rpc("getaddednodeinfo"), [])

        self.log("addnode errors")
        e = assert_raises_rpc_error(-1, None, n0.rpc, "addnode", target, "delete")
        assert_true(e.message.startswith("addnode \"node\" \"command\""), e.message)
        assert_raises_rpc_error(-8, "Error: Node address cannot be empty", n0.rpc, "addnode",
                                "", "add")
        assert_raises_rpc_error(-8, "Error: Node address cannot be empty", n0.rpc, "addnode",
                                "  ", "onetry")
        assert_raises_rpc_error(-8, "Error: v2transport requested but not enabled (see "
                                "-v2transport)", n0.rpc, "addnode", "127.0.0.1:1", "add", True)
        assert_raises_rpc_error(-24, "Error: Node could not be removed. It has not been added "
                                "previously.", n0.rpc, "addnode", "127.0.0.1:1", "remove")
        # Core compares the addresses too, not only the strings. (A port nobody listens on:
        # the node dials it.)
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        assert_equal(n0.rpc("addnode", "127.0.0.1:%d" % port, "add"), None)
        for same in ("[::ffff:127.0.0.1]:%d" % port, "127.0.0.1:0%d" % port):
            assert_raises_rpc_error(-23, "Error: Node already added", n0.rpc, "addnode", same,
                                    "add")
        assert_equal(n0.rpc("addnode", "127.0.0.1:%d" % port, "remove"), None)
        closed.close()

        self.log("addnode remove keeps the connection, then disconnectnode by address")
        assert_equal(n0.rpc("addnode", target, "remove"), None)
        assert_equal(n0.rpc("getaddednodeinfo"), [])
        assert_raises_rpc_error(-24, "Error: Node has not been added.", n0.rpc,
                                "getaddednodeinfo", target)
        assert_raises_rpc_error(-24, "It has not been added previously", n0.rpc, "addnode",
                                target, "remove")
        assert_true(self.peer_info(n0, target) is not None, "still connected")
        assert_equal(n0.rpc("disconnectnode", target), None)
        wait_until(lambda: self.peer_info(n0, target) is None and
                   n1.rpc("getconnectioncount") == 0, timeout=10, what="node1 disconnected")

        self.log("addnode onetry: a manual connection, not listed by getaddednodeinfo")
        assert_equal(n0.rpc("addnode", target, "onetry"), None)
        wait_until(lambda: self.peer_info(n0, target) is not None, timeout=20,
                   what="the onetry connection")
        assert_equal(self.peer_info(n0, target)["connection_type"], "manual")
        assert_equal(n0.rpc("getaddednodeinfo"), [])
        # A onetry that cannot connect answers null as well.
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        assert_equal(n0.rpc("addnode", "127.0.0.1:%d" % closed.getsockname()[1], "onetry"),
                     None)
        closed.close()

    def test_disconnectnode(self):
        n0, n1 = self.node0, self.node1
        target = self.target
        self.log("disconnectnode by nodeid (positional and named) and its errors")
        wait_until(lambda: self.peer_info(n0, target) is not None, timeout=10,
                   what="node1 still connected")
        node1_id = self.peer_info(n0, target)["id"]
        assert_equal(n0.rpc("disconnectnode", "", node1_id), None)
        wait_until(lambda: self.peer_info(n0, target) is None, timeout=10,
                   what="node1 disconnected by id")
        wait_until(lambda: n1.rpc("getconnectioncount") == 0, timeout=10, what="node1 alone")
        q = self.peer()
        qid = self.peer_info(n0, local_addr(q))["id"]
        assert_equal(n0.rpc("disconnectnode", nodeid=qid), None)
        q.wait_for_disconnect(timeout=10)
        q.close()
        not_found = "Node not found in connected nodes"
        assert_raises_rpc_error(-29, not_found, n0.rpc, "disconnectnode", "127.0.0.1:1")
        assert_raises_rpc_error(-29, not_found, n0.rpc, "disconnectnode", "", 999999)
        assert_raises_rpc_error(-29, not_found, n0.rpc, "disconnectnode", "", qid)
        assert_raises_rpc_error(-29, not_found, n0.rpc, "disconnectnode", nodeid=-1)
        both = "Only one of address and nodeid should be provided."
        assert_raises_rpc_error(-32602, both, n0.rpc, "disconnectnode",
                                local_addr(self.python_peer), self.python_peer_id)
        assert_raises_rpc_error(-32602, both, n0.rpc, "disconnectnode")
        assert_true(self.python_peer.is_connected, "the Python peer stays")
        assert_equal(n0.rpc("getconnectioncount"), 1)

    def test_getnodeaddresses(self):
        node = self.node0
        p = self.python_peer
        self.log("getnodeaddresses: addresses from an addrv2, count and network filter")
        assert_equal(node.rpc("getnodeaddresses"), [])
        assert_equal(node.rpc("getnodeaddresses", 0), [])
        now = int(time.time())
        addrs = [p2p.NetAddrV2.from_ip(ip, 8333 + i, SERVICES, now - 60)
                 for i, ip in enumerate(MADE_UP_V4 + MADE_UP_V6)]
        # Core keeps only addresses that may serve blocks (NETWORK or NETWORK_LIMITED), and
        # does not count the others as processed.
        addrs.append(p2p.NetAddrV2.from_ip("23.99.45.67", 8333, 0, now - 60))
        p.send_message(p2p.MsgAddrV2(addrs))
        p.sync_with_ping()
        total = len(MADE_UP_V4) + len(MADE_UP_V6)
        wait_until(lambda: len(node.rpc("getnodeaddresses", 0)) >= total, timeout=10,
                   what="%d addresses" % total)
        got = node.rpc("getnodeaddresses", 0)
        ports = {ip: 8333 + i for i, ip in enumerate(MADE_UP_V4 + MADE_UP_V6)}
        assert_equal(sorted(a["address"] for a in got), sorted(MADE_UP_V4 + MADE_UP_V6))
        for a in got:
            assert_equal(sorted(a), ["address", "network", "port", "services", "time"])
            assert_equal(a["port"], ports[a["address"]])
            assert_equal(a["services"], SERVICES)
            assert_equal(a["network"], "ipv6" if ":" in a["address"] else "ipv4")
            # Core takes two hours off the time a peer relays.
            assert_true(now - 60 - 2 * 3600 - 5 <= a["time"] <= now, "time %d" % a["time"])
        assert_equal(len(node.rpc("getnodeaddresses")), 1)
        assert_equal(len(node.rpc("getnodeaddresses", 3)), 3)
        assert_equal(len(node.rpc("getnodeaddresses", 100)), total)
        v4 = node.rpc("getnodeaddresses", 0, "ipv4")
        assert_equal(sorted(a["address"] for a in v4), sorted(MADE_UP_V4))
        v6 = node.rpc("getnodeaddresses", 0, "IPv6")
        assert_equal(sorted(a["address"] for a in v6), sorted(MADE_UP_V6))
        assert_equal(len(node.rpc("getnodeaddresses", 1, "ipv6")), 1)
        for net in ("onion", "i2p", "cjdns"):
            assert_equal(node.rpc("getnodeaddresses", 0, net), [])
        assert_raises_rpc_error(-8, "Address count out of range", node.rpc, "getnodeaddresses",
                                -1)
        assert_raises_rpc_error(-8, "Network not recognized: tor6", node.rpc,
                                "getnodeaddresses", 0, "tor6")
        assert_raises_rpc_error(-8, "Network not recognized: ", node.rpc, "getnodeaddresses",
                                0, "")
        info = node.rpc("getaddrmaninfo")
        assert_equal(info["ipv4"]["total"], len(MADE_UP_V4))
        assert_equal(info["ipv6"]["total"], len(MADE_UP_V6))
        assert_equal(info["all_networks"]["total"], total)
        assert_equal(node.rpc("getconnectioncount"), 1)  # none of them dialled
        pi = self.peer_info(node, local_addr(p))
        assert_equal(pi["addr_relay_enabled"], True)
        assert_equal((pi["addr_processed"], pi["addr_rate_limited"]), (total, 0))

        self.log("addresses from a peer without the addr permission are rate-limited")
        # Core's token bucket: one address at first, then one every ten seconds.
        n1 = self.node1
        q = self.peer(node=n1)
        q.send_message(p2p.MsgAddrV2([p2p.NetAddrV2.from_ip("23.%d.8.9" % (50 + i), 8333,
                                                            SERVICES, now - 60)
                                      for i in range(10)]))
        q.sync_with_ping()
        pi = self.peer_info(n1, local_addr(q))
        assert_equal(pi["permissions"], [])
        assert_equal((pi["addr_processed"], pi["addr_rate_limited"]), (1, 9))
        assert_equal(len(n1.rpc("getnodeaddresses", 0)), 1)
        q.close()

    def test_getblockfrompeer(self):
        node = self.node0
        self.log("getblockfrompeer: a header announced by one peer, the block from another")
        cb = ChainBuilder(REGTEST_GENESIS, REGTEST_GENESIS_TIME)
        blk = cb.create_block(cb.genesis, tag=b"rpc_net getblockfrompeer")
        server = self.peer(QuietServer, blocks=[blk])
        server_id = self.peer_info(node, local_addr(server))["id"]
        announcer = self.peer()
        announcer_id = self.peer_info(node, local_addr(announcer))["id"]
        assert_raises_rpc_error(-1, "Block header missing", node.rpc, "getblockfrompeer",
                                blk.hash, server_id)
        assert_raises_rpc_error(-1, "Block header missing", node.rpc, "getblockfrompeer",
                                blk.hash, 999999)
        assert_raises_rpc_error(-8, "blockhash must be of length 64 (not 3, for 'abc')",
                                node.rpc, "getblockfrompeer", "abc", server_id)
        mark = announcer.log_index()
        announcer.send_headers([blk])  # the header only: it never sends the block
        announcer.sync_with_ping()
        assert_equal(node.rpc("getblockheader", blk.hash)["confirmations"], -1)
        # The node asks the announcer for the block (Core does too, during IBD).
        announcer.wait_for("getdata", since=mark, timeout=10)
        info = self.peer_info(node, local_addr(announcer))
        assert_equal(info["synced_headers"], 1)
        assert_equal(info["inflight"], [1])
        assert_equal(node.rpc("getblockcount"), 0)
        assert_raises_rpc_error(-1, "Peer does not exist", node.rpc, "getblockfrompeer",
                                blk.hash, 999999)
        old = self.peer(services=p2p.NODE_NETWORK)
        old_id = self.peer_info(node, local_addr(old))["id"]
        assert_raises_rpc_error(-1, "Pre-SegWit peer", node.rpc, "getblockfrompeer", blk.hash,
                                old_id)
        old.close()
        # Core's FetchBlock forgets the earlier request and asks again.
        mark = announcer.log_index()
        assert_equal(node.rpc("getblockfrompeer", blk.hash, announcer_id), {})
        announcer.wait_for("getdata", since=mark, timeout=10)

        assert_equal(server.served, [])
        assert_equal(node.rpc("getblockfrompeer", blk.hash, server_id), {})
        wait_until(lambda: node.rpc("getblockcount") == 1, timeout=10, what="the block")
        assert_equal(server.served, [blk.sha])
        # Nothing is left in flight: Core forgets the other requests for the block.
        assert_equal(self.peer_info(node, local_addr(announcer))["inflight"], [])
        got = node.rpc("getblock", blk.hash)
        assert_equal((got["height"], got["hash"], got["confirmations"]), (1, blk.hash, 1))
        assert_raises_rpc_error(-1, "Block already downloaded", node.rpc, "getblockfrompeer",
                                blk.hash, server_id)
        assert_raises_rpc_error(-1, "Block already downloaded", node.rpc, "getblockfrompeer",
                                REGTEST_GENESIS, announcer_id)
        server.sync_with_ping()
        info = self.peer_info(node, local_addr(server))
        assert_equal(info["bytesrecv_per_msg"]["block"], 24 + len(blk.serialize()))
        assert_true(info["last_block"] > 0, "last_block set")
        server.close()
        announcer.close()
        wait_until(lambda: node.rpc("getconnectioncount") == 1, timeout=10,
                   what="the three peers gone")

    def banned(self, node):
        return {b["address"]: b for b in node.rpc("listbanned")}

    def test_setban(self):
        node = self.node0
        p = self.python_peer
        self.log("setban add: peers from 127.0.0.1 are disconnected, new ones refused")
        assert_equal(node.rpc("listbanned"), [])
        extra = self.peer()
        t0 = int(time.time())
        assert_equal(node.rpc("setban", "127.0.0.1", "add"), None)
        p.wait_for_disconnect(timeout=10)
        extra.wait_for_disconnect(timeout=10)
        extra.close()
        self.wait_no_peers(node)
        self.refused(node.p2p_port)
        assert_equal(node.rpc("getconnectioncount"), 0)
        bans = node.rpc("listbanned")
        assert_equal(len(bans), 1)
        b = bans[0]
        assert_equal(sorted(b), ["address", "ban_created", "ban_duration", "banned_until",
                                 "time_remaining"])
        assert_equal(b["address"], "127.0.0.1/32")
        assert_true(t0 - 2 <= b["ban_created"] <= time.time() + 2, "ban_created is now")
        assert_equal(b["banned_until"], b["ban_created"] + DEFAULT_BANTIME)
        assert_equal(b["ban_duration"], DEFAULT_BANTIME)
        assert_true(DEFAULT_BANTIME - 10 <= b["time_remaining"] <= DEFAULT_BANTIME,
                    "time_remaining %d" % b["time_remaining"])

        self.log("setban errors")
        assert_raises_rpc_error(-23, "Error: IP/Subnet already banned", node.rpc, "setban",
                                "127.0.0.1", "add")
        assert_raises_rpc_error(-23, "Error: IP/Subnet already banned", node.rpc, "setban",
                                "127.0.0.1/32", "add")
        for bad in ("not-an-ip", "10.0.0.0/33", "10.0.0.0/255.0.255.0", "", "1.2.3.4/x",
                    "0.0.0.0", "::"):
            assert_raises_rpc_error(-30, "Error: Invalid IP/Subnet", node.rpc, "setban", bad,
                                    "add")
        e = assert_raises_rpc_error(-1, None, node.rpc, "setban", "10.9.0.0/16", "ban")
        assert_true(e.message.startswith("setban \"subnet\" \"command\""), e.message)
        assert_raises_rpc_error(-8, "Error: Absolute timestamp is in the past", node.rpc,
                                "setban", "10.3.0.0/16", "add", 1000, True)
        assert_raises_rpc_error(-30, "Error: Unban failed. Requested address/subnet was not "
                                "previously manually banned.", node.rpc, "setban", "10.3.0.0/16",
                                "remove")

        self.log("setban subnets, IPv6, bantime and absolute; listbanned in Core's order")
        now = int(time.time())
        assert_equal(node.rpc("setban", "10.0.0.0/255.0.0.0", "add"), None)
        assert_equal(node.rpc("setban", "10.1.0.0/16", "add", 1000), None)
        assert_equal(node.rpc("setban", "10.2.0.0/16", "add", now + 5000, True), None)
        assert_equal(node.rpc("setban", "[::1]", "add", -5), None)  # 0 or less: the default
        assert_equal(node.rpc("setban", "2a01:4f8::/32", "add"), None)
        # An address inside a banned subnet is banned; another subnet is not.
        assert_raises_rpc_error(-23, "Error: IP/Subnet already banned", node.rpc, "setban",
                                "10.1.2.3", "add")
        assert_raises_rpc_error(-23, "Error: IP/Subnet already banned", node.rpc, "setban",
                                "10.0.0.0/8", "add")
        assert_raises_rpc_error(-30, "Error: Unban failed", node.rpc, "setban", "10.1.2.3",
                                "remove")
        bans = self.banned(node)
        assert_equal([b["address"] for b in node.rpc("listbanned")],
                     ["10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16", "127.0.0.1/32",
                      "::1/128", "2a01:4f8::/32"])
        assert_equal(bans["10.1.0.0/16"]["ban_duration"], 1000)
        assert_true(990 <= bans["10.1.0.0/16"]["time_remaining"] <= 1000, "relative bantime")
        assert_equal(bans["10.2.0.0/16"]["banned_until"], now + 5000)
        assert_equal(bans["10.2.0.0/16"]["ban_duration"],
                     now + 5000 - bans["10.2.0.0/16"]["ban_created"])
        assert_equal(bans["::1/128"]["ban_duration"], DEFAULT_BANTIME)

        self.log("banlist.json, and the bans survive a restart")
        with open(os.path.join(node.net_dir, "banlist.json")) as f:
            saved = json.load(f)
        by_addr = {e["address"]: e for e in saved["banned_nets"]}
        assert_equal(sorted(by_addr), sorted(bans))
        for addr, e in by_addr.items():
            assert_equal((e["version"], e["ban_created"], e["banned_until"]),
                         (1, bans[addr]["ban_created"], bans[addr]["banned_until"]))
        node.stop()
        node.start()
        after = self.banned(node)
        assert_equal(sorted(after), sorted(bans))
        for addr in bans:
            assert_equal((after[addr]["ban_created"], after[addr]["banned_until"]),
                         (bans[addr]["ban_created"], bans[addr]["banned_until"]))
        self.refused(node.p2p_port)

        self.log("setban remove lets 127.0.0.1 in again; clearbanned")
        assert_equal(node.rpc("setban", "127.0.0.1", "remove"), None)
        assert_raises_rpc_error(-30, "Error: Unban failed. Requested address/subnet was not "
                                "previously manually banned.", node.rpc, "setban", "127.0.0.1",
                                "remove")
        assert_true("127.0.0.1/32" not in self.banned(node), "unbanned")
        self.python_peer = self.peer()
        assert_equal(node.rpc("getconnectioncount"), 1)
        assert_equal(node.rpc("clearbanned"), None)
        assert_equal(node.rpc("listbanned"), [])
        with open(os.path.join(node.net_dir, "banlist.json")) as f:
            assert_equal(json.load(f)["banned_nets"], [])
        assert_equal(node.rpc("setban", "10.0.0.0/8", "add"), None)  # banned again after clear
        assert_equal(node.rpc("clearbanned"), None)

    def test_setnetworkactive(self):
        n0, n1 = self.node0, self.node1
        self.log("setnetworkactive false: every peer dropped, none accepted, none dialled")
        assert_equal(n0.rpc("addnode", self.target, "add"), None)
        wait_until(lambda: self.peer_info(n0, self.target) is not None and
                   n1.rpc("getconnectioncount") == 1, timeout=20, what="node0 -> node1")
        assert_equal(n0.rpc("getconnectioncount"), 2)
        assert_equal(n0.rpc("setnetworkactive", False), False)
        self.python_peer.wait_for_disconnect(timeout=10)
        self.python_peer.close()
        self.wait_no_peers(n0)
        self.wait_no_peers(n1)
        info = n0.rpc("getnetworkinfo")
        assert_equal((info["networkactive"], info["connections"], info["connections_in"],
                      info["connections_out"]), (False, 0, 0, 0))
        assert_equal(n0.rpc("getpeerinfo"), [])
        self.refused(n0.p2p_port)
        assert_equal(n0.rpc("setnetworkactive", False), False)
        time.sleep(1)
        assert_equal(n1.rpc("getconnectioncount"), 0)  # the added node is not dialled

        self.log("setnetworkactive true: connections again")
        assert_equal(n0.rpc("setnetworkactive", True), True)
        assert_equal(n0.rpc("getnetworkinfo")["networkactive"], True)
        self.python_peer = self.peer()
        assert_equal(self.peer_info(n0, local_addr(self.python_peer))["connection_type"],
                     "inbound")
        assert_equal(n0.rpc("addnode", self.target, "remove"), None)
        assert_equal(n0.rpc("addnode", self.target, "onetry"), None)
        wait_until(lambda: self.peer_info(n0, self.target) is not None, timeout=20,
                   what="node0 -> node1 again")

    def test_cli(self):
        node = self.node0
        self.log("bitnode-cli converts numbers and booleans")
        r = node.cli("setban", "127.0.0.2", "add", "100", check=True)
        assert_equal(r.stdout, "")
        until = int(time.time()) + 3000
        node.cli("setban", "10.4.0.0/16", "add", str(until), "true", check=True)
        bans = json.loads(node.cli("listbanned", check=True).stdout)
        by_addr = {b["address"]: b for b in bans}
        assert_equal(by_addr["127.0.0.2/32"]["ban_duration"], 100)
        assert_equal(by_addr["10.4.0.0/16"]["banned_until"], until)
        r = node.cli("setban", "127.0.0.2", "add", "100")
        assert_equal(r.returncode, 23)
        assert_equal(r.stderr, "error code: -23\nerror message:\nError: IP/Subnet already "
                               "banned\n")
        node.cli("clearbanned", check=True)
        r = node.cli("getnodeaddresses", "0", "ipv6", check=True)
        assert_equal(sorted(a["address"] for a in json.loads(r.stdout)), sorted(MADE_UP_V6))
        r = node.cli("disconnectnode", "", "999999")
        assert_equal(r.returncode, 29)
        assert_equal(r.stderr, "error code: -29\nerror message:\nNode not found in connected "
                               "nodes\n")
        assert_equal(node.cli("-named", "disconnectnode", "nodeid=999999").returncode, 29)
        assert_equal(node.cli("getconnectioncount", check=True).stdout.strip(), "2")
        r = node.cli("setnetworkactive", "false", check=True)
        assert_equal(r.stdout.strip(), "false")
        self.wait_no_peers(node)
        assert_equal(node.cli("setnetworkactive", "true", check=True).stdout.strip(), "true")
        r = node.cli("getblockfrompeer", REGTEST_GENESIS, "0")
        assert_equal(r.returncode, 1)
        assert_equal(r.stderr, "error code: -1\nerror message:\nBlock already downloaded\n")


if __name__ == "__main__":
    RPCNetTest().main()
