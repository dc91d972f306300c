#!/usr/bin/env python3
"""-capturemessages writes every message sent and processed in Core's format (Core's
p2p_message_capture, in short): <datadir>/regtest/message_capture/<addr with ':' as '_'>/
msgs_recv.dat and msgs_sent.dat, records of time (u64 LE, microseconds), type (12 bytes,
NUL-padded), length (u32 LE) and payload, in the order they were handled; without the
option nothing is written.
"""

import os
import struct

import p2p
from framework import BitnodeTestFramework, assert_equal, assert_true


def records(path):
    out = []
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off < len(data):
        t, = struct.unpack_from("<Q", data, off)
        cmd = data[off + 8:off + 20].rstrip(b"\x00").decode()
        n, = struct.unpack_from("<I", data, off + 20)
        out.append((t, cmd, data[off + 24:off + 24 + n]))
        off += 24 + n
    assert_equal(off, len(data))
    return out


class MessageCaptureTest(BitnodeTestFramework):
    num_nodes = 1
    extra_args = [["-capturemessages"]]

    def run_test(self):
        node = self.nodes[0]
        peer = p2p.P2PConnection().connect(node.p2p_port)
        peer.send_message(p2p.MsgPing(0x1234))
        peer.sync_with_ping()
        base = os.path.join(node.net_dir, "message_capture")
        dirs = os.listdir(base)
        assert_equal(len(dirs), 1)
        host, port = peer.sock.getsockname()
        assert_equal(dirs[0], "%s_%d" % (host, port))
        recv = records(os.path.join(base, dirs[0], "msgs_recv.dat"))
        sent = records(os.path.join(base, dirs[0], "msgs_sent.dat"))
        rcmds, scmds = [r[1] for r in recv], [r[1] for r in sent]
        self.log("received: %s; sent: %s" % (" ".join(rcmds), " ".join(scmds)))
        assert_equal(rcmds[0], "version")
        assert_true("verack" in rcmds and "ping" in rcmds, rcmds)
        assert_equal(scmds[0], "version")
        assert_true("verack" in scmds and "pong" in scmds, scmds)
        pongs = [r for r in sent if r[1] == "pong"]
        assert_true(any(r[2] == struct.pack("<Q", 0x1234) for r in pongs), "our ping answered")
        for rs in (recv, sent):
            times = [r[0] for r in rs]
            assert_equal(times, sorted(times))
        peer.close()
        node.stop()
        node.start(["-capturemessages=0"])
        peer = p2p.P2PConnection().connect(node.p2p_port)
        peer.sync_with_ping()
        assert_equal(os.listdir(base), dirs)  # nothing new without the option
        peer.close()


if __name__ == "__main__":
    MessageCaptureTest().main()
