#!/usr/bin/env python3
"""Many inbound P2P peers at once (contrib/bench/p2p-load.sh): run on purpose, never by the
tests.

    p2p-load-sim.py PORT [--peers 100] [--seconds S] [--stagger MS] [--relay-every K]

Opens PEERS connections to 127.0.0.1:PORT, STAGGER ms apart (default 20), each an asyncio
task speaking v1 with the message code of test/functional/p2p.py: version (NODE_WITNESS
only, so the node never downloads blocks from it; the relay flag set on every K-th peer,
default 2: Core lets transaction-relaying peers take only -inboundrelaypercent, 50%, of the
inbound slots), wtxidrelay, sendaddrv2, verack; then,
until S seconds after the first connection or SIGTERM/SIGINT: a ping every 2 s (and a pong
for each of the node's), a getheaders from genesis every 5 s, an inv of one unknown wtxid
every 3 s (a getdata for it is answered notfound), a getdata of one block the node's headers
named every 10 s, an empty headers answer to the node's getheaders.

Prints one JSON object: per peer its index, when it connected, finished the handshake and
was disconnected (seconds from the start; null when it was not), bytes received; in all the
messages received by command.
"""

import argparse
import asyncio
import json
import os
import random
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "test", "functional"))
import p2p  # noqa: E402
from blocktools import REGTEST_GENESIS  # noqa: E402


class Peer:
    def __init__(self, index, t0):
        self.index = index
        self.t0 = t0
        self.connected = None
        self.handshake = None
        self.closed = None
        self.bytes = 0
        self.blocks = []  # hashes from the node's headers answers
        self.wanted = set()  # our fake wtxids the node may ask for
        self.writer = None

    def send(self, msg):
        self.writer.write(p2p.frame(msg.command, msg.serialize()))

    def send_raw(self, command, payload):
        self.writer.write(p2p.frame(command, payload))


async def ticker(peer, stop):
    n = 0
    while not stop.is_set() and peer.closed is None:
        await asyncio.sleep(1)
        n += 1
        if peer.handshake is None:
            continue
        if n % 2 == 0:
            peer.send(p2p.MsgPing())
        if n % 5 == 0:
            peer.send(p2p.MsgGetHeaders([REGTEST_GENESIS]))
        if n % 3 == 0:
            h = random.getrandbits(256).to_bytes(32, "little")
            peer.wanted.add(h)
            peer.send(p2p.MsgInv([(p2p.MSG_WTX, h)]))
        if n % 10 == 0 and peer.blocks:
            peer.send(p2p.MsgGetData([(p2p.MSG_WITNESS_BLOCK, random.choice(peer.blocks))]))
        try:
            await peer.writer.drain()
        except (ConnectionError, OSError):
            return


def on_message(peer, command, payload, counts):
    counts[command] = counts.get(command, 0) + 1
    if command == "version":
        peer.send(p2p.MsgWtxidRelay())
        peer.send(p2p.MsgSendAddrV2())
        peer.send(p2p.MsgVerack())
    elif command == "verack":
        peer.handshake = time.time() - peer.t0
    elif command == "ping":
        peer.send(p2p.MsgPong(struct.unpack("<Q", payload[:8])[0]))
    elif command == "getheaders":
        peer.send(p2p.MsgHeaders([]))
    elif command == "headers" and not peer.blocks:
        # The first 100 headers' hashes: the blocks asked for later.
        r = p2p.ByteReader(payload)
        count = r.compact_size()
        for _ in range(min(count, 100)):
            peer.blocks.append(p2p.Header.from_bytes(r.read(80)).sha)
            r.read(1)  # the transaction count, 0
    elif command == "getdata":
        peer.send_raw("notfound", payload)


async def run_peer(peer, port, stop, counts, relay):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        peer.closed = time.time() - peer.t0
        return
    peer.writer = writer
    peer.connected = time.time() - peer.t0
    peer.send(p2p.MsgVersion(services=p2p.NODE_WITNESS, addr_recv=p2p.NetAddr("127.0.0.1", port),
                             start_height=0, relay=relay))
    tick = asyncio.ensure_future(ticker(peer, stop))
    parser = p2p.FrameParser()
    try:
        while not stop.is_set():
            reader_task = asyncio.ensure_future(reader.read(1 << 16))
            stop_task = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({reader_task, stop_task},
                                         return_when=asyncio.FIRST_COMPLETED)
            if reader_task not in done:
                reader_task.cancel()
                break
            stop_task.cancel()
            data = reader_task.result()
            if not data:
                peer.closed = time.time() - peer.t0
                break
            peer.bytes += len(data)
            for command, payload in parser.feed(data):
                on_message(peer, command, payload, counts)
    except (ConnectionError, OSError):
        peer.closed = time.time() - peer.t0
    tick.cancel()
    writer.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--peers", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=1e9)
    ap.add_argument("--stagger", type=float, default=20.0)
    ap.add_argument("--relay-every", type=int, default=2)
    a = ap.parse_args()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    t0 = time.time()
    counts = {}
    peers = [Peer(i, t0) for i in range(a.peers)]
    tasks = []
    for p in peers:
        tasks.append(asyncio.ensure_future(run_peer(p, a.port, stop, counts, p.index % a.relay_every == 0)))
        await asyncio.sleep(a.stagger / 1000.0)
    try:
        await asyncio.wait_for(stop.wait(), timeout=max(0.0, a.seconds - (time.time() - t0)))
    except asyncio.TimeoutError:
        stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({
        "peers": [{"index": p.index, "relay": p.index % a.relay_every == 0, "connected": p.connected, "handshake": p.handshake,
                   "closed": p.closed, "bytes": p.bytes} for p in peers],
        "messages": counts,
    }))


if __name__ == "__main__":
    asyncio.run(main())
