#!/usr/bin/env python3
"""peers.dat in Bitcoin Core's format with Core's start-up answers, and anchors.dat.

- a missing peers.dat is created at start ("Creating peers.dat because the file was not
  found"); one of a format too new is renamed to peers.dat.bak and a new one made; a damaged
  one (cut short, another network's, bad checksum, counts out of range, a zero key) stops
  start-up with Core's "Invalid or corrupt peers.dat (...)" error; a file built byte by byte
  as Core's feature_addrman.py builds it loads ("Loaded 0 addresses from peers.dat");
- anchors: two block-relay-only outbound peers (addconnection to Python peers listening on
  loopback) are written to anchors.dat at shutdown ("DumpAnchors: Flush 2 ..."), inbound
  peers are not; at the next start the file is read and removed, and an anchor (given the
  services the node wants) is dialled first as block-relay-only ("Trying to make an anchor
  connection to ..."); a damaged anchors.dat gives no anchors and is removed too.
"""

import hashlib
import os
import struct

import p2p
from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true, wait_until

REGTEST_MAGIC = bytes.fromhex("fabfb5da")
SIGNET_MAGIC = bytes.fromhex("0a03cf40")


def hash256(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def core_peers_dat(*, compat=4, magic=REGTEST_MAGIC, key=1, n_new=0, n_tried=0, checksum=None):
    """An empty addrman in Core's format 1 (feature_addrman.py's serialize_addrman)."""
    r = magic + bytes([1, (32 + compat) & 0xff]) + key.to_bytes(32, "little")
    r += struct.pack("<iii", n_new, n_tried, 1024 ^ (1 << 30)) + bytes(4 * 1024)
    return r + (checksum or hash256(r))


def log_text(node):
    with open(node.debug_log, errors="replace") as f:
        return f.read()


class AddrmanAnchorsTest(BitnodeTestFramework):
    num_nodes = 1
    start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        peers = os.path.join(node.net_dir, "peers.dat")
        anchors = os.path.join(node.net_dir, "anchors.dat")
        args = ["-debug=net"]
        self.test_peers_dat(node, peers, args)
        self.test_anchors(node, anchors, args)

    def test_peers_dat(self, node, peers, args):
        self.log("a missing peers.dat is created at start")
        node.start(args + ["-connect=0"])
        assert_in('Creating peers.dat because the file was not found ("%s")' % peers,
                  log_text(node))
        assert_true(os.path.exists(peers), "peers.dat created")
        node.stop()
        with open(peers, "rb") as f:
            data = f.read()
        assert_equal(data[:4], REGTEST_MAGIC)
        assert_equal(data[4:6], bytes([4, 36]))  # format 4, lowest compatible 4

        self.log("Core's own empty file loads")
        with open(peers, "wb") as f:
            f.write(core_peers_dat())
        node.start(args + ["-connect=0"])
        assert_in("Loaded 0 addresses from peers.dat", log_text(node))
        node.stop()

        self.log("a format too new: renamed to peers.dat.bak, a new one made")
        with open(peers, "wb") as f:
            f.write(core_peers_dat(compat=111))
        node.start(args + ["-connect=0"])
        assert_in('Creating new peers.dat because the file version was not compatible ("%s"). '
                  "Original backed up to peers.dat.bak" % peers, log_text(node))
        assert_true(os.path.exists(peers + ".bak"), "peers.dat.bak")
        node.stop()

        self.log("damaged files stop start-up with Core's error")
        cases = [
            (core_peers_dat(compat=-32), "Corrupted addrman database: The compat value (0) is "
             "lower than the expected minimum value 32.: iostream error"),
            (core_peers_dat()[:-1], "AutoFile::read: end of file: iostream error"),
            (core_peers_dat(magic=SIGNET_MAGIC), "Invalid network magic number"),
            (core_peers_dat(checksum=b"ab" * 32), "Checksum mismatch, data corrupted"),
            (core_peers_dat(n_tried=-1), "Corrupt AddrMan serialization: nTried=-1, should be "
             "in [0, 16384]: iostream error"),
            (core_peers_dat(n_new=65537), "Corrupt AddrMan serialization: nNew=65537, should be "
             "in [0, 65536]: iostream error"),
            (core_peers_dat(key=0), "Corrupt data. Consistency check failed with code -16: "
             "iostream error"),
        ]
        for data, why in cases:
            with open(peers, "wb") as f:
                f.write(data)
            node.assert_start_fails(
                args, "Error: Invalid or corrupt peers.dat (%s). If you believe this is a bug, "
                "please report it to https://github.com/bitcoin/bitcoin/issues. As a "
                'workaround, you can move the file ("%s") out of the way (rename, move, or '
                "delete) to have a new one created on the next start." % (why, peers))
        os.remove(peers)

    def test_anchors(self, node, anchors, args):
        self.log("block-relay-only peers are written to anchors.dat at shutdown")
        node.start(args)
        assert_in("0 block-relay-only anchors will be tried for connections.", log_text(node))
        block_relay = []
        for _ in range(2):
            peer = p2p.P2PConnection()
            port = peer.listen()
            node.rpc("addconnection", "127.0.0.1:%d" % port, "block-relay-only", False)
            peer.wait_for_connect()
            block_relay.append((peer, port))
        inbound = p2p.P2PConnection().connect(node.p2p_port)
        inbound_port = inbound.sock.getsockname()[1]
        types = sorted(p["connection_type"] for p in node.rpc("getpeerinfo"))
        assert_equal(types, ["block-relay-only", "block-relay-only", "inbound"])
        node.stop()
        assert_in("DumpAnchors: Flush 2 outbound block-relay-only peer addresses to "
                  "anchors.dat", log_text(node))
        with open(anchors, "rb") as f:
            data = f.read()
        assert_equal(data[:4], REGTEST_MAGIC)
        assert_equal(data[4], 2)
        assert_equal(hash256(data[:-32]), data[-32:])
        for _, port in block_relay:
            # BIP155 IPv4 127.0.0.1, port big-endian
            assert_in(bytes([1, 4, 127, 0, 0, 1]) + struct.pack(">H", port), data)
        assert_true(bytes([127, 0, 0, 1]) + struct.pack(">H", inbound_port) not in data,
                    "no inbound peer")
        for peer, _ in block_relay:
            peer.close()
        inbound.close()

        self.log("at start: read, removed, and an anchor dialled first")
        # The node wrote the services it knew when it dialled (none: addconnection); give
        # both anchors the ones it wants, or it would skip them as Core does.
        body = bytearray(data[:-32])
        at = 5
        for _ in range(2):
            assert_equal(body[at + 8], 0)  # services: a one-byte CompactSize
            body[at + 8] = p2p.NODE_NETWORK | p2p.NODE_WITNESS
            at += 4 + 4 + 1 + 2 + 4 + 2
        listeners = []
        for _, port in block_relay:
            peer = p2p.P2PConnection()
            peer.listen(port)
            listeners.append(peer)
        with open(anchors, "wb") as f:
            f.write(bytes(body) + hash256(bytes(body)))
        node.start(args)
        text = log_text(node)
        assert_in("2 block-relay-only anchors will be tried for connections.", text)
        assert_true(not os.path.exists(anchors), "anchors.dat removed")
        # Taken from the last; the other is of the same network group (loopback): skipped.
        last = struct.unpack(">H", body[5 + 17 + 15:5 + 17 + 17])[0]
        which = [port for _, port in block_relay].index(last)
        wait_until(lambda: "Trying to make an anchor connection to 127.0.0.1:%d" % last
                   in log_text(node), timeout=10, what="the anchor dialled")
        listeners[which].wait_for_connect()
        wait_until(lambda: [p["connection_type"] for p in node.rpc("getpeerinfo")] ==
                   ["block-relay-only"], timeout=10, what="one block-relay-only peer")
        node.stop()
        for peer in listeners:
            peer.close()

        self.log("a damaged anchors.dat gives no anchors and is removed")
        with open(anchors, "rb") as f:
            data = bytearray(f.read())
        data[20:20] = b"1"
        with open(anchors, "wb") as f:
            f.write(bytes(data))
        node.start(args)
        assert_in("0 block-relay-only anchors will be tried for connections.",
                  log_text(node).split("DumpAnchors: Flush 1")[-1])
        assert_true(not os.path.exists(anchors), "anchors.dat removed")
        node.stop()


if __name__ == "__main__":
    AddrmanAnchorsTest().main()
