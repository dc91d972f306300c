"""A P2P client for functional tests: Bitcoin's v1 wire protocol (version 70016), standard
library only.

- framing: magic, 12-byte NUL-padded command, little-endian length, 4-byte checksum (the
  first bytes of sha256d(payload)); frame() builds a frame with any field overridden (a
  wrong magic, length or checksum) for misbehaviour tests, FrameParser splits a byte
  stream back into messages;
- messages: one class per command with serialize() and deserialize(payload); a command
  without a class (or a payload its class cannot decode) is kept as MsgUnknown with the
  raw payload;
- P2PConnection: connects to a node (or listens for a node that dials out with -connect /
  -addnode), does the handshake as Bitcoin Core's test framework does, answers pings,
  records every message received (a log, counters, the last one of each command) and
  dispatches it to on_<command>() callbacks; wait_for(), sync_with_ping() and a few
  request helpers for sync tests;
- BlockServer: an honest peer serving the blocks it holds (getheaders from a locator,
  getdata for blocks).

Byte order as in blocktools: hashes are the 32 internal bytes; functions taking a hash also
take the reversed hex that RPC shows. Transactions and blocks are blocktools' Tx and Block
(parse_tx() / parse_block() read them back from bytes).
"""

import collections
import queue
import random
import socket
import struct
import sys
import threading
import time
import traceback

from blocktools import (REGTEST_GENESIS, REGTEST_MAGIC, Block, OutPoint, Tx, TxIn, TxOut,
                        ser_compact_size, ser_string, sha256d)
from framework import FailedCheck

PROTOCOL_VERSION = 70016
USER_AGENT = b"/bitnode-p2p-test:0.1/"

NODE_NETWORK = 1 << 0
NODE_BLOOM = 1 << 2
NODE_WITNESS = 1 << 3
NODE_COMPACT_FILTERS = 1 << 6
NODE_NETWORK_LIMITED = 1 << 10
NODE_P2P_V2 = 1 << 11
P2P_SERVICES = NODE_NETWORK | NODE_WITNESS

MSG_TX = 1
MSG_BLOCK = 2
MSG_FILTERED_BLOCK = 3
MSG_CMPCT_BLOCK = 4
MSG_WTX = 5
MSG_WITNESS_FLAG = 1 << 30
MSG_WITNESS_BLOCK = MSG_BLOCK | MSG_WITNESS_FLAG
MSG_WITNESS_TX = MSG_TX | MSG_WITNESS_FLAG

HEADER_SIZE = 24  # magic 4, command 12, length 4, checksum 4
COMMAND_SIZE = 12
MAX_PROTOCOL_MESSAGE_LENGTH = 4_000_000  # Core disconnects on a larger length prefix
MAX_SIZE = 0x02000000  # 32 MiB, the serialization limit
MAX_HEADERS_RESULTS = 2000
MAX_INV_SIZE = 50_000
MAX_ADDR_TO_SEND = 1000
MAX_SUBVERSION_LENGTH = 256
ZERO_HASH = bytes(32)

# BIP155 network ids and their address lengths.
NET_IPV4, NET_IPV6, NET_TORV2, NET_TORV3, NET_I2P, NET_CJDNS = 1, 2, 3, 4, 5, 6
ADDRV2_LENGTHS = {NET_IPV4: 4, NET_IPV6: 16, NET_TORV2: 10, NET_TORV3: 32, NET_I2P: 32,
                  NET_CJDNS: 16}
IPV4_MAPPED_PREFIX = bytes(10) + b"\xff\xff"


class DecodeError(ValueError):
    """A payload (or a frame) that does not decode."""


class P2PError(Exception):
    """A failure of the connection itself: not connected, a bad frame from the node."""


# ---------------------------------------------------------------------------------------------
# Reading bytes

class ByteReader:
    """Reads little-endian integers, compact sizes and strings from bytes; raises DecodeError
    when the data ends early or a compact size is not minimal (Core rejects those)."""

    def __init__(self, data, offset=0):
        self.data = bytes(data)
        self.offset = offset

    def read(self, n):
        if n < 0 or self.offset + n > len(self.data):
            raise DecodeError("%d bytes wanted at offset %d of %d" %
                              (n, self.offset, len(self.data)))
        b = self.data[self.offset:self.offset + n]
        self.offset += n
        return b

    def _unpack(self, fmt, n):
        return struct.unpack(fmt, self.read(n))[0]

    def u8(self):
        return self._unpack("<B", 1)

    def u16(self):
        return self._unpack("<H", 2)

    def u16be(self):
        return self._unpack(">H", 2)

    def u32(self):
        return self._unpack("<I", 4)

    def i32(self):
        return self._unpack("<i", 4)

    def u64(self):
        return self._unpack("<Q", 8)

    def i64(self):
        return self._unpack("<q", 8)

    def compact_size(self, limit=MAX_SIZE):
        """A compact size, minimally encoded and at most limit."""
        first = self.u8()
        if first < 0xFD:
            n, least = first, 0
        elif first == 0xFD:
            n, least = self.u16(), 0xFD
        elif first == 0xFE:
            n, least = self.u32(), 0x10000
        else:
            n, least = self.u64(), 0x100000000
        if n < least:
            raise DecodeError("non-canonical compact size %d" % n)
        if limit is not None and n > limit:
            raise DecodeError("compact size %d over %d" % (n, limit))
        return n

    def var_bytes(self, limit=MAX_SIZE):
        return self.read(self.compact_size(limit))

    def remaining(self):
        return len(self.data) - self.offset

    def at_end(self):
        return self.offset == len(self.data)

    def expect_end(self, what):
        if not self.at_end():
            raise DecodeError("%d trailing bytes after %s" % (self.remaining(), what))


def to_hash(x):
    """32 internal bytes from 32 bytes, a 64-digit RPC hex string (reversed), or an object
    with .sha (a Block or Header)."""
    if isinstance(x, str):
        b = bytes.fromhex(x)
        if len(b) != 32:
            raise ValueError("not a 32-byte hash: %r" % x)
        return b[::-1]
    if isinstance(x, (bytes, bytearray)):
        if len(x) != 32:
            raise ValueError("not a 32-byte hash: %r" % bytes(x).hex())
        return bytes(x)
    return x.sha


def hash_hex(h):
    """The RPC (reversed hex) form of a 32-byte internal hash."""
    return h[::-1].hex()


# ---------------------------------------------------------------------------------------------
# Transactions, headers and blocks read back from bytes

def deserialize_tx(r):
    """Reads one transaction (with or without BIP144 witness) from a ByteReader as a
    blocktools.Tx."""
    version = r.i32()
    witness_flag = 0
    n_in = r.compact_size()
    if n_in == 0:
        witness_flag = r.u8()
        if witness_flag != 1:
            raise DecodeError("bad witness flag %d" % witness_flag)
        n_in = r.compact_size()
    vin = []
    for _ in range(n_in):
        prevout = OutPoint(r.read(32), r.u32())
        vin.append(TxIn(prevout, r.var_bytes(), r.u32()))
    vout = [TxOut(r.i64(), r.var_bytes()) for _ in range(r.compact_size())]
    if witness_flag:
        for txin in vin:
            txin.witness = [r.var_bytes() for _ in range(r.compact_size())]
        if not any(i.witness for i in vin):
            raise DecodeError("witness flag set but all witnesses empty")
    return Tx(vin, vout, version, r.u32())


def parse_tx(raw):
    """A blocktools.Tx from its serialization (every byte must be used)."""
    r = ByteReader(raw)
    tx = deserialize_tx(r)
    r.expect_end("tx")
    return tx


class Header:
    """An 80-byte block header: version, prev, merkle, time, bits, nonce."""

    def __init__(self, version, prev, merkle, time, bits, nonce):
        self.version = version
        self.prev = prev  # 32 internal bytes
        self.merkle = merkle
        self.time = time
        self.bits = bits
        self.nonce = nonce

    @classmethod
    def from_bytes(cls, b):
        if len(b) < 80:
            raise DecodeError("header of %d bytes" % len(b))
        version, = struct.unpack("<i", b[0:4])
        t, bits, nonce = struct.unpack("<III", b[68:80])
        return cls(version, bytes(b[4:36]), bytes(b[36:68]), t, bits, nonce)

    def serialize(self):
        return struct.pack("<i", self.version) + self.prev + self.merkle + \
            struct.pack("<III", self.time, self.bits, self.nonce)

    def header(self):
        return self.serialize()

    @property
    def sha(self):
        return sha256d(self.serialize())

    @property
    def hash(self):
        return hash_hex(self.sha)

    def __repr__(self):
        return "Header(%s prev=%s)" % (self.hash, hash_hex(self.prev))


def to_header(x):
    """A Header from a Header, 80 header bytes, a raw block (its first 80 bytes) or any object
    with header() returning the 80 bytes (a blocktools.Block)."""
    if isinstance(x, Header):
        return x
    if isinstance(x, (bytes, bytearray)):
        return Header.from_bytes(x[:80])
    return Header.from_bytes(x.header())


def parse_block(raw):
    """A blocktools.Block from its serialization (every byte must be used); .merkle and
    .nonce are the ones read, not recomputed."""
    r = ByteReader(raw)
    h = Header.from_bytes(r.read(80))
    txs = [deserialize_tx(r) for _ in range(r.compact_size())]
    r.expect_end("block")
    b = Block(h.prev, txs, h.time, h.bits, h.version, h.nonce)
    b.merkle = h.merkle
    return b


def block_locator(hashes):
    """A locator for the chain hashes[0..tip] (index = height): the tip, then back one by
    one for 10 entries, then doubling steps, always ending with hashes[0]."""
    out, i, step = [], len(hashes) - 1, 1
    while i > 0:
        out.append(to_hash(hashes[i]))
        if len(out) >= 10:
            step *= 2
        i -= step
    out.append(to_hash(hashes[0]))
    return out


# ---------------------------------------------------------------------------------------------
# Framing

def checksum(payload):
    """The frame checksum: the first 4 bytes of sha256d(payload)."""
    return sha256d(payload)[:4]


def encode_command(command):
    """The 12-byte command field: command (str or bytes) padded with NULs. 12 raw bytes pass
    unchanged (so a test can send a command with bytes after the NUL)."""
    if isinstance(command, str):
        command = command.encode("ascii")
    if len(command) > COMMAND_SIZE:
        raise ValueError("command longer than 12 bytes: %r" % command)
    return command + bytes(COMMAND_SIZE - len(command))


def frame(command, payload=b"", magic=REGTEST_MAGIC, length=None, csum=None):
    """A full frame for payload; length (int) and csum (4 bytes) override the computed
    fields, magic may be any 4 bytes: for misbehaviour tests."""
    payload = bytes(payload)
    if length is None:
        length = len(payload)
    if csum is None:
        csum = checksum(payload)
    return bytes(magic) + encode_command(command) + struct.pack("<I", length) + \
        bytes(csum) + payload


FrameHeader = collections.namedtuple("FrameHeader", "magic command length checksum")


def parse_frame_header(b):
    """The fields of a 24-byte frame header; command is the raw 12 bytes."""
    if len(b) < HEADER_SIZE:
        raise DecodeError("frame header of %d bytes" % len(b))
    length, = struct.unpack("<I", b[16:20])
    return FrameHeader(bytes(b[0:4]), bytes(b[4:16]), length, bytes(b[20:24]))


def decode_command(raw12):
    """The command string of a 12-byte field, or DecodeError unless it is printable ASCII
    followed only by NULs (Core's IsMessageTypeValid)."""
    name, _, pad = raw12.partition(b"\x00")
    if any(pad) or not all(0x20 <= c <= 0x7E for c in name):
        raise DecodeError("invalid command field %r" % raw12)
    return name.decode("ascii")


class FrameParser:
    """Splits a byte stream into (command, payload) pairs. feed() raises DecodeError for a
    wrong magic, a length over max_length, a bad checksum or an invalid command: a
    well-behaved node never sends those."""

    def __init__(self, magic=REGTEST_MAGIC, max_length=MAX_PROTOCOL_MESSAGE_LENGTH):
        self.magic = bytes(magic)
        self.max_length = max_length
        self.buf = bytearray()

    def feed(self, data):
        """Adds data; returns the list of messages it completed."""
        self.buf += data
        out = []
        while len(self.buf) >= HEADER_SIZE:
            h = parse_frame_header(self.buf)
            if h.magic != self.magic:
                raise DecodeError("wrong magic %s" % h.magic.hex())
            command = decode_command(h.command)
            if h.length > self.max_length:
                raise DecodeError("%s: length %d over %d" % (command, h.length,
                                                              self.max_length))
            if len(self.buf) < HEADER_SIZE + h.length:
                break
            payload = bytes(self.buf[HEADER_SIZE:HEADER_SIZE + h.length])
            del self.buf[:HEADER_SIZE + h.length]
            if checksum(payload) != h.checksum:
                raise DecodeError("%s: bad checksum %s" % (command, h.checksum.hex()))
            out.append((command, payload))
        return out


# ---------------------------------------------------------------------------------------------
# Addresses

def ip_to_16(ip):
    """16 bytes of an IPv4 (as ::ffff:a.b.c.d) or IPv6 address string."""
    if ":" in ip:
        return socket.inet_pton(socket.AF_INET6, ip)
    return IPV4_MAPPED_PREFIX + socket.inet_pton(socket.AF_INET, ip)


def ip_from_16(b):
    if b.startswith(IPV4_MAPPED_PREFIX):
        return socket.inet_ntop(socket.AF_INET, b[12:])
    return socket.inet_ntop(socket.AF_INET6, b)


class NetAddr:
    """A network address (CAddress): services, IP, port (big-endian on the wire) and, in addr
    messages, a time: 26 bytes without the time (version), 30 with it."""

    def __init__(self, ip="0.0.0.0", port=0, services=0, time=0):
        self.ip = ip
        self.port = port
        self.services = services
        self.time = time

    def serialize(self, with_time=False):
        t = struct.pack("<I", self.time) if with_time else b""
        return t + struct.pack("<Q", self.services) + ip_to_16(self.ip) + \
            struct.pack(">H", self.port)

    @classmethod
    def deserialize(cls, r, with_time=False):
        t = r.u32() if with_time else 0
        services = r.u64()
        ip = ip_from_16(r.read(16))
        return cls(ip, r.u16be(), services, t)

    def __repr__(self):
        return "NetAddr(%s:%d services=%#x time=%d)" % (self.ip, self.port, self.services,
                                                       self.time)


class NetAddrV2:
    """A BIP155 address: time, services (compact size), network id, address bytes, port."""

    def __init__(self, net_id=NET_IPV4, addr=b"\x7f\x00\x00\x01", port=0, services=0,
                 time=0):
        self.net_id = net_id
        self.addr = bytes(addr)
        self.port = port
        self.services = services
        self.time = time

    @classmethod
    def from_ip(cls, ip, port, services=0, time=0):
        if ":" in ip:
            return cls(NET_IPV6, socket.inet_pton(socket.AF_INET6, ip), port, services, time)
        return cls(NET_IPV4, socket.inet_pton(socket.AF_INET, ip), port, services, time)

    @property
    def ip(self):
        """The address as a string for IPv4 / IPv6, else None."""
        if self.net_id == NET_IPV4 and len(self.addr) == 4:
            return socket.inet_ntop(socket.AF_INET, self.addr)
        if self.net_id == NET_IPV6 and len(self.addr) == 16:
            return socket.inet_ntop(socket.AF_INET6, self.addr)
        return None

    def serialize(self):
        return struct.pack("<I", self.time) + ser_compact_size(self.services) + \
            bytes([self.net_id]) + ser_string(self.addr) + struct.pack(">H", self.port)

    @classmethod
    def deserialize(cls, r):
        t = r.u32()
        services = r.compact_size(None)
        net_id = r.u8()
        addr = r.var_bytes(512)
        want = ADDRV2_LENGTHS.get(net_id)
        if want is not None and len(addr) != want:
            raise DecodeError("addrv2 network %d with %d address bytes" % (net_id, len(addr)))
        return cls(net_id, addr, r.u16be(), services, t)

    def __repr__(self):
        return "NetAddrV2(net=%d %s:%d services=%#x time=%d)" % (
            self.net_id, self.ip or self.addr.hex(), self.port, self.services, self.time)


# ---------------------------------------------------------------------------------------------
# Messages

class Message:
    """Base of the message classes: command, serialize(), deserialize(payload). Decoded
    messages also keep .payload, the bytes received."""
    command = None
    fields = ()

    def serialize(self):
        return b""

    @classmethod
    def deserialize(cls, payload):
        ByteReader(payload).expect_end(cls.command)
        return cls()

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%s" % (f, _short(getattr(self, f)))
                                     for f in self.fields))


def _short(v):
    """repr for logs: hashes as RPC hex, long byte strings by their size."""
    if isinstance(v, bytes):
        if len(v) == 32:
            return hash_hex(v)
        return repr(v) if len(v) <= 40 else "<%d bytes>" % len(v)
    if isinstance(v, Inv):
        return "Inv(%d, %s)" % (v.type, hash_hex(v.hash))
    if isinstance(v, list):
        items = [_short(x) for x in v[:8]]
        return "[%s%s]" % (", ".join(items), ", ... %d in all" % len(v) if len(v) > 8 else "")
    return repr(v)


class MsgVersion(Message):
    """version: protocol version, services, time, addr_recv / addr_from (26 bytes each),
    nonce, user agent, start height, relay flag (optional on decode)."""
    command = "version"
    fields = ("version", "services", "time", "addr_recv", "addr_from", "nonce",
              "user_agent", "start_height", "relay")

    def __init__(self, version=PROTOCOL_VERSION, services=P2P_SERVICES, time=None,
                 addr_recv=None, addr_from=None, nonce=None, user_agent=USER_AGENT,
                 start_height=0, relay=True):
        self.version = version
        self.services = services
        self.time = int(_now()) if time is None else time
        self.addr_recv = addr_recv or NetAddr("127.0.0.1", 0)
        self.addr_from = addr_from or NetAddr("0.0.0.0", 0, services)
        self.nonce = random.getrandbits(64) if nonce is None else nonce
        self.user_agent = user_agent.encode() if isinstance(user_agent, str) else user_agent
        self.start_height = start_height
        self.relay = relay

    def serialize(self):
        return struct.pack("<iQq", self.version, self.services, self.time) + \
            self.addr_recv.serialize() + self.addr_from.serialize() + \
            struct.pack("<Q", self.nonce) + ser_string(self.user_agent) + \
            struct.pack("<i", self.start_height) + (b"\x01" if self.relay else b"\x00")

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls.__new__(cls)
        m.version, m.services, m.time = r.i32(), r.u64(), r.i64()
        m.addr_recv = NetAddr.deserialize(r)
        m.addr_from = NetAddr.deserialize(r)
        m.nonce = r.u64()
        m.user_agent = r.var_bytes(MAX_SUBVERSION_LENGTH)
        m.start_height = r.i32()
        m.relay = bool(r.u8()) if not r.at_end() else True
        return m  # later fields, if any, are ignored as Core does


class MsgVerack(Message):
    command = "verack"


class MsgSendHeaders(Message):
    command = "sendheaders"


class MsgWtxidRelay(Message):
    command = "wtxidrelay"


class MsgSendAddrV2(Message):
    command = "sendaddrv2"


class MsgGetAddr(Message):
    command = "getaddr"


class MsgMempool(Message):
    command = "mempool"


class _NonceMessage(Message):
    fields = ("nonce",)

    def __init__(self, nonce=None):
        self.nonce = random.getrandbits(64) if nonce is None else nonce

    def serialize(self):
        return struct.pack("<Q", self.nonce)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls(r.u64())
        r.expect_end(cls.command)
        return m


class MsgPing(_NonceMessage):
    """ping: a u64 nonce the peer echoes in its pong."""
    command = "ping"


class MsgPong(_NonceMessage):
    command = "pong"


class MsgSendCmpct(Message):
    """sendcmpct (BIP152): announce flag (u8) and compact block version (u64)."""
    command = "sendcmpct"
    fields = ("announce", "version")

    def __init__(self, announce=False, version=2):
        self.announce = announce
        self.version = version

    def serialize(self):
        return struct.pack("<BQ", 1 if self.announce else 0, self.version)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls(bool(r.u8()), r.u64())
        r.expect_end(cls.command)
        return m


class MsgFeeFilter(Message):
    """feefilter (BIP133): the minimum fee rate in sat/kvB (i64)."""
    command = "feefilter"
    fields = ("feerate",)

    def __init__(self, feerate=0):
        self.feerate = feerate

    def serialize(self):
        return struct.pack("<q", self.feerate)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls(r.i64())
        r.expect_end(cls.command)
        return m


class MsgAddr(Message):
    """addr: a list of NetAddr with times (30 bytes each, at most 1000)."""
    command = "addr"
    fields = ("addrs",)

    def __init__(self, addrs=()):
        self.addrs = list(addrs)

    def serialize(self):
        return ser_compact_size(len(self.addrs)) + \
            b"".join(a.serialize(with_time=True) for a in self.addrs)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls([NetAddr.deserialize(r, True) for _ in range(r.compact_size(MAX_ADDR_TO_SEND))])
        r.expect_end(cls.command)
        return m


class MsgAddrV2(Message):
    """addrv2 (BIP155): a list of NetAddrV2 (at most 1000)."""
    command = "addrv2"
    fields = ("addrs",)

    def __init__(self, addrs=()):
        self.addrs = list(addrs)

    def serialize(self):
        return ser_compact_size(len(self.addrs)) + b"".join(a.serialize() for a in self.addrs)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls([NetAddrV2.deserialize(r) for _ in range(r.compact_size(MAX_ADDR_TO_SEND))])
        r.expect_end(cls.command)
        return m


class MsgGetHeaders(Message):
    """getheaders: version (u32), locator hashes, stop hash (zero: as many as allowed)."""
    command = "getheaders"
    fields = ("version", "locator", "stop")

    def __init__(self, locator=(), stop=ZERO_HASH, version=PROTOCOL_VERSION):
        self.locator = [to_hash(h) for h in locator]
        self.stop = to_hash(stop)
        self.version = version

    def serialize(self):
        return struct.pack("<I", self.version) + ser_compact_size(len(self.locator)) + \
            b"".join(self.locator) + self.stop

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        version = r.u32()
        locator = [r.read(32) for _ in range(r.compact_size())]
        m = cls(locator, r.read(32), version)
        r.expect_end(cls.command)
        return m


class MsgGetBlocks(MsgGetHeaders):
    """getblocks: the same fields as getheaders; answered with an inv of blocks."""
    command = "getblocks"


class MsgHeaders(Message):
    """headers: a list of Header, each followed on the wire by a tx count (0)."""
    command = "headers"
    fields = ("headers",)

    def __init__(self, headers=()):
        self.headers = [to_header(h) for h in headers]

    def serialize(self):
        return ser_compact_size(len(self.headers)) + \
            b"".join(h.serialize() + b"\x00" for h in self.headers)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        headers = []
        for _ in range(r.compact_size()):
            headers.append(Header.from_bytes(r.read(80)))
            n = r.compact_size()
            if n != 0:
                raise DecodeError("header followed by a tx count of %d" % n)
        m = cls(headers)
        r.expect_end(cls.command)
        return m


Inv = collections.namedtuple("Inv", "type hash")
Inv.__doc__ = "One inventory entry: type (MSG_*, u32) and a 32-byte internal hash."


class MsgInv(Message):
    """inv: a list of Inv (type u32 + hash), at most 50000."""
    command = "inv"
    fields = ("inv",)

    def __init__(self, inv=()):
        self.inv = [Inv(t, to_hash(h)) for t, h in inv]

    def serialize(self):
        return ser_compact_size(len(self.inv)) + \
            b"".join(struct.pack("<I", i.type) + i.hash for i in self.inv)

    @classmethod
    def deserialize(cls, payload):
        r = ByteReader(payload)
        m = cls([(r.u32(), r.read(32)) for _ in range(r.compact_size(MAX_INV_SIZE))])
        r.expect_end(cls.command)
        return m


class MsgGetData(MsgInv):
    command = "getdata"


class MsgNotFound(MsgInv):
    command = "notfound"


class MsgBlock(Message):
    """block: the serialized block, kept as raw bytes (block() parses it)."""
    command = "block"
    fields = ("hash",)

    def __init__(self, raw=b""):
        self.raw = raw.serialize() if hasattr(raw, "serialize") else bytes(raw)

    def serialize(self):
        return self.raw

    @classmethod
    def deserialize(cls, payload):
        if len(payload) < 80:
            raise DecodeError("block of %d bytes" % len(payload))
        return cls(payload)

    @property
    def sha(self):
        return sha256d(self.raw[:80])

    @property
    def hash(self):
        return hash_hex(self.sha)

    def block(self):
        return parse_block(self.raw)


class MsgTx(Message):
    """tx: the serialized transaction, kept as raw bytes (tx() parses it)."""
    command = "tx"
    fields = ("raw",)

    def __init__(self, raw=b""):
        self.raw = raw.serialize() if hasattr(raw, "serialize") else bytes(raw)

    def serialize(self):
        return self.raw

    @classmethod
    def deserialize(cls, payload):
        return cls(payload)

    def tx(self):
        return parse_tx(self.raw)


class MsgUnknown(Message):
    """A command without a class here, or a payload its class could not decode (.error)."""
    fields = ("command", "payload", "error")

    def __init__(self, command, payload=b"", error=None):
        self.command = command
        self.payload = bytes(payload)
        self.error = error

    def serialize(self):
        return self.payload


MESSAGES = {cls.command: cls for cls in (
    MsgVersion, MsgVerack, MsgSendHeaders, MsgWtxidRelay, MsgSendAddrV2, MsgGetAddr,
    MsgMempool, MsgPing, MsgPong, MsgSendCmpct, MsgFeeFilter, MsgAddr, MsgAddrV2,
    MsgGetHeaders, MsgGetBlocks, MsgHeaders, MsgInv, MsgGetData, MsgNotFound, MsgBlock,
    MsgTx)}


def decode_message(command, payload):
    """The message object for a received (command, payload); MsgUnknown for a command
    without a class or a payload that does not decode (with .error saying why)."""
    cls = MESSAGES.get(command)
    if cls is None:
        return MsgUnknown(command, payload)
    try:
        m = cls.deserialize(payload)
    except DecodeError as e:
        return MsgUnknown(command, payload, str(e))
    m.payload = payload
    return m


def _now():
    return time.time()


# ---------------------------------------------------------------------------------------------
# Connections

class P2PConnection:
    """One P2P connection to a node, driven by a reader and a writer thread.

    connect(port) dials the node; listen() then wait_for_connect() accepts the node's own
    connection (-connect / -addnode). Either way a version goes out as soon as the socket is
    connected (unless version_on_connect=False: then the test calls send_version() when it
    wants); on the node's version the connection sends wtxidrelay (if the node speaks 70016
    or later), sendaddrv2 and verack; on its verack, sendcmpct(False, 2). handshake=False
    turns all of that off (no version, no verack: for tests of messages before the
    handshake). Every ping is answered with a pong; with ping_interval (seconds) the
    connection also pings the node on its own.

    Received messages are appended to .messages, counted in .message_count and kept in
    .last_message[command]; then on_message(msg) and on_<command>(msg) run in the reader
    thread with .lock held. Subclasses override those callbacks (calling the base for
    version / verack / ping to keep the handshake). Callbacks must not block: no wait_for()
    inside them. Framing or decoding errors in what the node sends and exceptions in
    callbacks are collected in .errors; wait_for() raises P2PError once there is one.
    Sends are queued and written in order by the writer thread, so send() never blocks on a
    node that stops reading.
    """

    def __init__(self, magic=REGTEST_MAGIC, services=P2P_SERVICES, start_height=0,
                 user_agent=USER_AGENT, relay=True, handshake=True, version_on_connect=True,
                 wtxidrelay=True, addrv2=True, ping_interval=None, version=PROTOCOL_VERSION):
        self.magic = bytes(magic)
        self.services = services
        self.start_height = start_height
        self.user_agent = user_agent
        self.relay = relay
        self.handshake = handshake
        self.version_on_connect = handshake and version_on_connect
        self.wtxidrelay = wtxidrelay
        self.addrv2 = addrv2
        self.ping_interval = ping_interval
        self.protocol_version = version
        self.lock = threading.Condition(threading.RLock())
        self.sock = None
        self.peer = None  # (host, port) of the node
        self.messages = []  # every message received, in order
        self.message_count = collections.Counter()
        self.last_message = {}
        self.sent_count = collections.Counter()
        self.errors = []
        self.peer_version = None  # the node's MsgVersion
        self.verack_received = False
        self._connected = False
        self._closed = False
        self._cursor = collections.defaultdict(int)  # per command: log index wait_for is at
        self._sendq = queue.Queue()
        self._unsent = 0
        self._stop = threading.Event()
        self._threads = []
        self._listener = None
        self.v2_attempts = 0  # listen(): connections dropped for not speaking v1 first

    # --- opening and closing

    def connect(self, port, host="127.0.0.1", timeout=30, wait_for_verack=True):
        """Dials host:port; with wait_for_verack (and a version sent on connect) returns
        once the node's verack arrived. Returns self."""
        sock = socket.create_connection((host, port), timeout=timeout)
        self._start(sock, (host, port))
        if wait_for_verack and self.version_on_connect:
            self.wait_for_verack(timeout)
        return self

    def listen(self, port=0, host="127.0.0.1"):
        """Listens on host:port (0: a free port) for one connection from the node; returns
        the port to give the node (-connect=127.0.0.1:<port>). The connection is accepted in
        the background: wait_for_connect() waits for it."""
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, port))
        ls.listen(1)
        self._listener = ls
        t = threading.Thread(target=self._accept_loop, daemon=True, name="p2p-accept")
        t.start()
        self._threads.append(t)
        return ls.getsockname()[1]

    def _accept_loop(self):
        # A v1 node, as this connection is, hangs up on a dialer whose first bytes are not
        # its network's magic (a BIP324 key): the node then dials again with v1 (Core's
        # "retrying with v1 transport protocol"), and that connection is the one kept.
        try:
            while True:
                sock, addr = self._listener.accept()
                sock.settimeout(30)
                try:
                    first = sock.recv(4, socket.MSG_PEEK | socket.MSG_WAITALL)
                except OSError:
                    first = b""
                if first == self.magic:
                    break
                self.v2_attempts += 1
                sock.close()
        except OSError:
            return  # closed before the node came
        finally:
            self._listener.close()
        self._start(sock, addr)

    def wait_for_connect(self, timeout=30, wait_for_verack=True):
        """After listen(): waits until the node connected (and, with wait_for_verack and a
        version sent on connect, until its verack arrived)."""
        self.wait_for(lambda: self._connected or self._closed, timeout,
                      desc="the node to connect")
        if wait_for_verack and self.version_on_connect:
            self.wait_for_verack(timeout)
        return self

    def _start(self, sock, peer):
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.lock:
            self.sock = sock
            self.peer = peer
            self._connected = True
            self.lock.notify_all()
        if self.version_on_connect:
            self.send_version()  # queued before the reader can answer the node's version
        for target, name in ((self._read_loop, "p2p-read"), (self._write_loop, "p2p-write")):
            t = threading.Thread(target=target, daemon=True, name=name)
            t.start()
            self._threads.append(t)
        if self.ping_interval:
            t = threading.Thread(target=self._ping_loop, daemon=True, name="p2p-ping")
            t.start()
            self._threads.append(t)
        with self.lock:
            self.on_open()

    @property
    def is_connected(self):
        """True from the connection until the node (or close()) ends it."""
        return self._connected and not self._closed

    def close(self, flush_timeout=5):
        """Writes what is queued (up to flush_timeout seconds), then closes the socket and
        joins the threads."""
        if self._listener is not None:
            try:
                self._listener.close()
            except OSError:
                pass
        if self.is_connected and flush_timeout:
            try:
                self.flush(flush_timeout)
            except FailedCheck:
                pass  # the node stopped reading: close anyway
        self._shutdown()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(5)

    def _shutdown(self):
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._mark_closed()

    def _mark_closed(self):
        with self.lock:
            already = self._closed
            self._closed = True
            self.lock.notify_all()
        self._stop.set()
        self._sendq.put(None)
        if not already:
            if self.sock is not None:
                try:
                    self.sock.close()
                except OSError:
                    pass
            with self.lock:
                self.on_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- threads

    def _read_loop(self):
        parser = FrameParser(self.magic)
        try:
            while True:
                data = self.sock.recv(1 << 16)
                if not data:
                    break
                for command, payload in parser.feed(data):
                    self._dispatch(command, payload)
        except DecodeError as e:
            self._error("bad frame from the node: %s" % e)
        except OSError:
            pass
        finally:
            self._mark_closed()

    def _write_loop(self):
        while True:
            data = self._sendq.get()
            if data is None:
                break
            try:
                self.sock.sendall(data)
            except OSError:
                break
            finally:
                with self.lock:
                    self._unsent -= 1
                    self.lock.notify_all()
        with self.lock:  # the connection is going away: drop the rest
            while True:
                try:
                    if self._sendq.get_nowait() is not None:
                        self._unsent -= 1
                except queue.Empty:
                    break
            self.lock.notify_all()

    def _ping_loop(self):
        while not self._stop.wait(self.ping_interval):
            self.send_message(MsgPing())

    def _dispatch(self, command, payload):
        msg = decode_message(command, payload)
        with self.lock:
            if isinstance(msg, MsgUnknown) and msg.error:
                self._error("undecodable %s from the node: %s" % (command, msg.error))
            self.messages.append(msg)
            self.message_count[command] += 1
            self.last_message[command] = msg
            try:
                self.on_message(msg)
                cb = getattr(self, "on_" + command, None) if command.isidentifier() else None
                if cb is not None:
                    cb(msg)
            except Exception:
                self._error("exception in a callback for %s:\n%s" %
                            (command, traceback.format_exc()))
            self.lock.notify_all()

    def _error(self, text):
        with self.lock:
            self.errors.append(text)
            self.lock.notify_all()
        print("p2p: %s" % text, file=sys.stderr, flush=True)

    # --- callbacks (reader thread, lock held)

    def on_open(self):
        """The socket is connected (the version, if any, is queued)."""

    def on_close(self):
        """The connection ended (node, close() or a bad frame)."""

    def on_message(self, msg):
        """Every message, before its on_<command>."""

    def on_version(self, msg):
        """Records the node's version and answers wtxidrelay, sendaddrv2, verack."""
        self.peer_version = msg
        if not self.handshake:
            return
        if self.wtxidrelay and msg.version >= 70016:
            self.send_message(MsgWtxidRelay())
        if self.addrv2:
            self.send_message(MsgSendAddrV2())
        self.send_message(MsgVerack())

    def on_verack(self, msg):
        """Marks the handshake done and sends sendcmpct(announce=False, version 2)."""
        self.verack_received = True
        if self.handshake:
            self.send_message(MsgSendCmpct(False, 2))

    def on_ping(self, msg):
        """Answers with a pong of the same nonce."""
        self.send_message(MsgPong(msg.nonce))

    # --- sending

    def send_raw(self, data):
        """Queues bytes as they are; returns False when the connection is closed."""
        with self.lock:
            if self.sock is None:
                raise P2PError("not connected")
            if self._closed:
                return False
            self._unsent += 1
            self._sendq.put(bytes(data))
        return True

    def send(self, command, payload=b""):
        """Queues a well-formed frame of command and payload (counted in .sent_count);
        returns False when the connection is closed."""
        if not self.send_raw(frame(command, payload, self.magic)):
            return False
        with self.lock:
            self.sent_count[command] += 1
        return True

    def send_message(self, msg):
        """Queues a message object (MsgPing() ...)."""
        return self.send(msg.command, msg.serialize())

    def flush(self, timeout=30):
        """Waits until everything queued has been written to the socket (or it closed)."""
        self.wait_for(lambda: self._unsent <= 0 or self._closed, timeout,
                      desc="queued messages to be written", check_errors=False)

    def send_version(self, **fields):
        """Sends a version with this connection's settings; fields override them."""
        host, port = (self.peer or ("127.0.0.1", 0))[:2]
        try:
            ip_to_16(host)
        except OSError:
            host = "127.0.0.1"  # a name such as localhost
        kw = dict(version=self.protocol_version, services=self.services,
                  addr_recv=NetAddr(host, port), start_height=self.start_height,
                  user_agent=self.user_agent, relay=self.relay)
        kw.update(fields)
        self.send_message(MsgVersion(**kw))

    # --- waiting

    def log_index(self):
        """The number of messages received so far: a mark for wait_for(since=...)."""
        with self.lock:
            return len(self.messages)

    def wait_for(self, cond, timeout=30, since=None, desc=None, check_errors=True):
        """Waits for cond and returns what it found; FailedCheck after timeout seconds.

        cond as a command string: the next message of that command, i.e. the first one at
        log index since or later (default: after the last one wait_for returned for that
        command); fails at once if the connection closed without it. cond as a callable:
        called with no argument, with .lock held, until it returns something true, which is
        returned. Raises P2PError if .errors is not empty (unless check_errors=False).
        """
        deadline = time.time() + timeout
        with self.lock:
            while True:
                if check_errors and self.errors:
                    raise P2PError("errors on the connection: %s" % "; ".join(self.errors))
                if isinstance(cond, str):
                    start = self._cursor[cond] if since is None else since
                    for i in range(start, len(self.messages)):
                        if self.messages[i].command == cond:
                            self._cursor[cond] = i + 1
                            return self.messages[i]
                    if self._closed:
                        raise FailedCheck("connection closed while waiting for %s" %
                                          (desc or cond))
                else:
                    result = cond()
                    if result:
                        return result
                left = deadline - time.time()
                if left <= 0:
                    raise FailedCheck("timed out after %ss waiting for %s" %
                                      (timeout, desc or cond))
                self.lock.wait(min(left, 0.5))

    def wait_for_verack(self, timeout=30):
        """Waits for the node's verack (the handshake is then complete on our side)."""
        def done():
            if self._closed and not self.verack_received:
                raise FailedCheck("connection closed during the handshake")
            return self.verack_received
        self.wait_for(done, timeout, desc="verack")

    def wait_for_disconnect(self, timeout=30):
        """Waits until the connection is closed (normally: by the node)."""
        self.wait_for(lambda: self._closed, timeout, desc="the node to disconnect",
                      check_errors=False)

    def sync_with_ping(self, timeout=30):
        """Sends a ping and waits for the pong with its nonce: the node has then processed
        everything sent before. Returns the nonce."""
        ping = MsgPing()
        mark = self.log_index()
        self.send_message(ping)

        def answered():
            if self._closed:
                raise FailedCheck("connection closed while waiting for pong")
            return any(m.command == "pong" and m.nonce == ping.nonce
                       for m in self.messages[mark:])
        self.wait_for(answered, timeout, desc="pong %d" % ping.nonce)
        return ping.nonce

    # --- helpers for sync tests

    def send_headers(self, headers):
        """Sends a headers message of Header / 80 bytes / Block objects, in order."""
        return self.send_message(MsgHeaders(headers))

    def announce_block_by_headers(self, block):
        """Announces block (a Block, Header or raw block) with a one-header message."""
        return self.send_headers([block])

    def send_block(self, raw):
        """Sends a block message: raw bytes, or a Block (serialized with its witnesses)."""
        return self.send_message(MsgBlock(raw))

    def send_tx(self, raw):
        """Sends a tx message: raw bytes, or a Tx (serialized with its witnesses)."""
        return self.send_message(MsgTx(raw))

    def send_inv(self, inv):
        """Sends an inv of (type, hash) pairs."""
        return self.send_message(MsgInv(inv))

    def send_getdata(self, inv):
        """Sends a getdata of (type, hash) pairs."""
        return self.send_message(MsgGetData(inv))

    def request_headers(self, locator, stop=ZERO_HASH, timeout=30):
        """Sends getheaders(locator, stop) and returns the Header list of the next headers
        message (an announcement arriving first would be taken for the answer)."""
        mark = self.log_index()
        self.send_message(MsgGetHeaders(locator, stop))
        return self.wait_for("headers", timeout, since=mark, desc="headers").headers

    def request_block(self, block_hash, witness=True, timeout=30):
        """Sends getdata for one block (MSG_WITNESS_BLOCK, or MSG_BLOCK when not witness)
        and returns the raw bytes of the block message with that hash."""
        h = to_hash(block_hash)
        mark = self.log_index()
        self.send_getdata([(MSG_WITNESS_BLOCK if witness else MSG_BLOCK, h)])

        def found():
            if self._closed:
                raise FailedCheck("connection closed while waiting for block %s" % hash_hex(h))
            for m in self.messages[mark:]:
                if m.command == "block" and isinstance(m, MsgBlock) and m.sha == h:
                    return m
            return None
        return self.wait_for(found, timeout, desc="block %s" % hash_hex(h)).raw


class BlockServer(P2PConnection):
    """An honest peer holding blocks: answers getheaders from the locator (up to 2000
    headers after the fork point with its best chain, through the stop hash) as Core does,
    and getdata for the blocks it holds (with or without witnesses as asked); unknown
    blocks are ignored as Core does, transactions answered with notfound.

    blocks: Block objects or raw blocks, parents before children; a block whose parent is
    not held hangs on base (default: the regtest genesis, at height base_height). The best
    chain is the longest one (the first one added among equals). start_height of the
    version is the best chain's height when it is sent, unless given.
    """

    def __init__(self, blocks=(), base=None, base_height=0, start_height=None, **kwargs):
        self.base = to_hash(base if base is not None else REGTEST_GENESIS)
        self.base_height = base_height
        self.blocks = {}  # hash -> Block or raw bytes
        self.parent = {}
        self.height = {self.base: base_height}
        self.chain = [self.base]  # best chain, index = height - base_height
        self.served = []  # hashes of blocks sent in answer to getdata
        self.fixed_start_height = start_height
        super().__init__(**kwargs)
        self.add_blocks(blocks)

    def send_version(self, **fields):
        """The version of P2PConnection, with the best chain's height as start height."""
        fields.setdefault("start_height", self.tip_height if self.fixed_start_height is None
                          else self.fixed_start_height)
        super().send_version(**fields)

    @property
    def tip(self):
        return self.chain[-1]

    @property
    def tip_height(self):
        return self.base_height + len(self.chain) - 1

    def add_blocks(self, blocks):
        """Adds blocks (parents first) and recomputes the best chain."""
        with self.lock:
            for b in blocks:
                h = to_header(b)
                parent = h.prev if h.prev in self.height else self.base
                self.blocks[h.sha] = b
                self.parent[h.sha] = parent
                self.height[h.sha] = self.height[parent] + 1
                if self.height[h.sha] > self.tip_height:
                    chain, x = [], h.sha
                    while x != self.base:
                        chain.append(x)
                        x = self.parent[x]
                    self.chain = [self.base] + chain[::-1]

    def header_of(self, h):
        return to_header(self.blocks[h])

    def raw_block(self, h, witness=True):
        """The serialization of a held block, with or without its witnesses."""
        b = self.blocks[h]
        if isinstance(b, (bytes, bytearray)):
            return bytes(b) if witness else parse_block(b).serialize(False)
        return b.serialize(witness)

    def headers_after(self, locator, stop=ZERO_HASH):
        """The Headers Core would answer to getheaders(locator, stop): from the block after
        the first locator hash on the best chain (none found: after base), at most 2000,
        ending at stop. An empty locator answers the stop block's header alone."""
        stop = to_hash(stop)
        if not locator:
            return [self.header_of(stop)] if stop in self.blocks else []
        index = {h: i for i, h in enumerate(self.chain)}
        start = 0
        for h in locator:
            if to_hash(h) in index:
                start = index[to_hash(h)]
                break
        out = []
        for h in self.chain[start + 1:start + 1 + MAX_HEADERS_RESULTS]:
            out.append(self.header_of(h))
            if h == stop:
                break
        return out

    def on_getheaders(self, msg):
        self.send_headers(self.headers_after(msg.locator, msg.stop))

    def on_getdata(self, msg):
        missing = []
        for inv in msg.inv:
            base_type = inv.type & ~MSG_WITNESS_FLAG
            if base_type == MSG_BLOCK and inv.hash in self.blocks:
                self.send_block(self.raw_block(inv.hash, bool(inv.type & MSG_WITNESS_FLAG)))
                self.served.append(inv.hash)
            elif inv.type == MSG_CMPCT_BLOCK and inv.hash in self.blocks:
                # A node asks a lone new block of a compact block peer as one; the whole
                # block answers it too (the node takes a block it has in flight).
                self.send_block(self.raw_block(inv.hash, True))
                self.served.append(inv.hash)
            elif base_type in (MSG_TX, MSG_WTX):
                missing.append(inv)
        if missing:
            self.send_message(MsgNotFound(missing))

    def announce_tip(self):
        """Announces the best chain's tip by its header (the node asks for the rest)."""
        if self.tip != self.base:
            self.announce_block_by_headers(self.header_of(self.tip))
