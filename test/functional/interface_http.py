#!/usr/bin/env python3
"""The RPC port's HTTP/1.1 server, on raw sockets against a running bitnoded.

- persistent connections: HTTP/1.1 keeps the connection by default, "Connection: close"
  closes it (and the reply says so), HTTP/1.0 closes unless "Connection: keep-alive" (which
  the reply echoes); HTTP/1.1 replies carry Date and Content-Length;
- limits: a request line of at most 8192 bytes, header lines of at most 8192 bytes in all
  (400 "Bad Request" and a close past them), a body of at most 32 MiB (413 "Content too
  large" and a close, without the body being sent);
- pipelining: requests sent back to back are answered in order on the same connection, and
  a malformed request after a good one gets its 400 after the good one's 200;
- chunked request bodies (chunk extensions ignored, chunked wins over Content-Length), and
  Content-Length given twice (400 when the values differ);
- malformed requests: NUL, short or malformed request lines, versions other than HTTP/1.x,
  whitespace before a header's colon, folded header lines, a bare CR: each 400;
- methods and paths: 405 for unknown methods and for GET/HEAD on "/", 404 for other paths,
  401 with a challenge without or with wrong credentials, a HEAD reply has no body;
- -rpcservertimeout: an incomplete request is dropped after the idle timeout, a request that
  takes longer than the timeout to answer is still answered, and the idle timer restarts
  after the reply.
"""

import base64
import json
import socket
import time

from framework import BitnodeTestFramework, FailedCheck, assert_equal, assert_in, assert_true

ADDR = "bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw"
MAX_HEADER_BYTES = 8192
MAX_BODY_BYTES = 32 * 1024 * 1024
JSON_GETBLOCKCOUNT = b'{"method":"getblockcount"}'
JSON_GETBESTBLOCKHASH = b'{"method":"getbestblockhash"}'


# ---- a raw HTTP client ----------------------------------------------------------------------

class Response:
    def __init__(self, raw, version, status, reason, headers, body):
        self.raw = raw            # the bytes of the whole response as received
        self.version = version    # "HTTP/1.1"
        self.status = status      # int
        self.reason = reason      # "OK"
        self.headers = headers    # [(name, value)] in order
        self.body = body          # bytes

    @property
    def status_line(self):
        return "%s %d %s" % (self.version, self.status, self.reason)

    def header(self, name):
        """The first value of header name (case-insensitive), or None."""
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%s %r>" % (self.status_line, self.raw[:300])


class RawConn:
    """One TCP connection to the RPC port: raw bytes out, whole responses in."""

    def __init__(self, port, timeout=30):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def close(self):
        self.sock.close()

    def _fill(self, what):
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise FailedCheck("connection closed while reading %s; had %r" % (what, self.buf[:300]))
        self.buf += chunk

    def read_response(self, head=False, check_common=True):
        """Reads one response: the head up to the empty line, then Content-Length body bytes
        (none for a reply to HEAD). HTTP/1.1 replies must carry Date and Content-Length."""
        while b"\r\n\r\n" not in self.buf:
            self._fill("a response head")
        head_bytes, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head_bytes.decode("latin-1").split("\r\n")
        version, status, reason = (lines[0].split(" ", 2) + [""])[:3]
        headers = []
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            assert_true(colon, "header line without a colon: %r" % line)
            headers.append((name, value.strip()))
        resp = Response(b"", version, int(status), reason, headers, b"")
        cl = resp.header("Content-Length")
        n = 0 if head or cl is None else int(cl)
        self.buf = rest
        while len(self.buf) < n:
            self._fill("a response body")
        resp.body, self.buf = self.buf[:n], self.buf[n:]
        resp.raw = head_bytes + b"\r\n\r\n" + resp.body
        if check_common and version == "HTTP/1.1":
            check_date(resp)
            if resp.status >= 200 and resp.status != 204:
                assert_true(cl is not None, "Content-Length in %r" % resp)
        return resp

    def wait_closed(self, timeout=10):
        """Waits for the server to close; returns the seconds it took. No more bytes may come."""
        start = time.time()
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except ConnectionResetError:
            data = b""
        except socket.timeout:
            raise FailedCheck("the server did not close the connection within %ds" % timeout)
        assert_equal(self.buf + data, b"")
        return time.time() - start

    def assert_open(self):
        """Nothing pending and no EOF: the server keeps the connection."""
        timeout = self.sock.gettimeout()
        self.sock.settimeout(0)  # with a timeout, Python would wait for readability first
        try:
            data = self.sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return
        finally:
            self.sock.settimeout(timeout)
        raise FailedCheck("connection not idle and open: recv gave %r" % data)


def check_date(resp):
    date = resp.header("Date")
    assert_true(date is not None, "Date header in %r" % resp)
    t = time.strptime(date, "%a, %d %b %Y %H:%M:%S GMT")
    assert_true(abs(time.mktime(t) - time.mktime(time.gmtime())) < 600, "Date is now: %s" % date)


def build_request(method="POST", path="/", body=b"", version="HTTP/1.1", headers=(),
                  auth=None, content_length=True):
    """The bytes of one request. auth: (user, password) or None for no Authorization."""
    lines = ["%s %s %s" % (method, path, version), "Host: 127.0.0.1"]
    if auth is not None:
        lines.append("Authorization: Basic " +
                     base64.b64encode(("%s:%s" % auth).encode()).decode())
    if content_length and (body or method == "POST"):
        lines.append("Content-Length: %d" % len(body))
    lines.extend(headers)
    return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + body


def chunked(*parts, ext_on=None):
    """A chunked body made of parts; the chunk at index ext_on gets the extension ";x=1"."""
    out = b""
    for i, p in enumerate(parts):
        out += b"%x%s\r\n%s\r\n" % (len(p), b";x=1" if i == ext_on else b"", p)
    return out + b"0\r\n\r\n"


class HTTPTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    # ---- helpers --------------------------------------------------------------------------

    def conn(self, timeout=30):
        return RawConn(self.nodes[0].rpc_port, timeout)

    def auth(self):
        return self.nodes[0].credentials()

    def rpc_request(self, body, **kw):
        kw.setdefault("auth", self.auth())
        return build_request("POST", "/", body, **kw)

    def exchange(self, data, head=False):
        """data on a new connection; returns (the response, the connection)."""
        c = self.conn()
        c.send(data)
        return c.read_response(head=head), c

    def expect_400(self, data, what):
        """data gets Core's 400 (no-store, empty) and the connection closes."""
        r, c = self.exchange(data)
        assert_true(r.status_line == "HTTP/1.1 400 Bad Request", "%s: got %r" % (what, r))
        assert_equal(r.header("Cache-Control"), "no-store")
        assert_equal(r.body, b"")
        c.wait_closed()
        c.close()

    def expect_status(self, data, status, what, head=False):
        r, c = self.exchange(data, head=head)
        assert_true(r.status == status, "%s: wanted %d, got %r" % (what, status, r))
        c.close()
        return r

    def assert_getblockcount(self, r, count):
        assert_equal(r.status, 200)
        assert_equal(r.header("Content-Type"), "application/json")
        assert_equal(r.json()["result"], count)

    # ---- the test -------------------------------------------------------------------------

    def run_test(self):
        node = self.nodes[0]
        node.rpc("generatetoaddress", 3, ADDR)
        self.test_keep_alive()
        self.test_limits()
        self.test_pipelining()
        self.test_chunked_and_content_length()
        self.test_malformed()
        self.test_methods_and_paths()
        self.test_idle_timeout()

    def test_keep_alive(self):
        node = self.nodes[0]
        count = node.rpc("getblockcount")

        self.log("HTTP/1.1: keep-alive by default, Date and Content-Length in replies")
        c = self.conn()
        for body in (JSON_GETBLOCKCOUNT, JSON_GETBESTBLOCKHASH):
            c.send(self.rpc_request(body))
            r = c.read_response()
            assert_equal(r.status_line, "HTTP/1.1 200 OK")
            assert_equal(r.header("Connection"), None)
            assert_equal(int(r.header("Content-Length")), len(r.body))
        assert_equal(r.json()["result"], node.rpc("getbestblockhash"))
        c.assert_open()
        c.send(self.rpc_request(JSON_GETBLOCKCOUNT))
        self.assert_getblockcount(c.read_response(), count)
        c.assert_open()

        self.log("HTTP/1.1 with Connection: close: the reply says close, then the server closes")
        c.send(self.rpc_request(JSON_GETBLOCKCOUNT, headers=["Connection: close"]))
        r = c.read_response()
        self.assert_getblockcount(r, count)
        assert_equal(r.header("Connection"), "close")
        c.wait_closed()
        c.close()

        self.log("HTTP/1.0: closed after the reply")
        r, c = self.exchange(self.rpc_request(JSON_GETBLOCKCOUNT, version="HTTP/1.0"))
        assert_equal(r.status_line, "HTTP/1.0 200 OK")
        assert_equal(r.json()["result"], count)
        assert_equal(r.header("Connection"), None)
        c.wait_closed()
        c.close()

        self.log("HTTP/1.0 with Connection: keep-alive: kept, and the reply says keep-alive")
        c = self.conn()
        for _ in range(2):
            c.send(self.rpc_request(JSON_GETBLOCKCOUNT, version="HTTP/1.0",
                                    headers=["Connection: keep-alive"]))
            r = c.read_response()
            assert_equal(r.status_line, "HTTP/1.0 200 OK")
            assert_equal(r.header("Connection"), "keep-alive")
            assert_equal(r.json()["result"], count)
            c.assert_open()
        c.close()

    def test_limits(self):
        self.log("request line: a 7000-byte URI is read (404), an 8193-byte one is refused")
        self.expect_status(build_request("GET", "/" + "a" * 6999), 404, "7000-byte URI")
        self.expect_400(build_request("GET", "/" + "a" * 8192), "8193-byte URI")

        self.log("headers: many small ones under 8192 bytes in all are read, over it refused")
        # "Host: 127.0.0.1\r\n" (17 bytes), then 36-byte lines, then the empty line.
        under = ["X-Header-%04d: %s" % (i, "v" * 20) for i in range(200)]     # 7219 bytes
        over = ["X-Header-%04d: %s" % (i, "v" * 20) for i in range(250)]      # 9019 bytes
        assert_true(17 + sum(len(h) + 2 for h in under) + 2 < MAX_HEADER_BYTES, "under")
        assert_true(17 + sum(len(h) + 2 for h in over) + 2 > MAX_HEADER_BYTES, "over")
        self.expect_status(build_request("GET", "/x", headers=under), 404, "headers under")
        self.expect_400(build_request("GET", "/x", headers=over), "headers over")

        self.log("body: Content-Length over 32 MiB gets 413 before the body is sent")
        c = self.conn()
        c.send(build_request("POST", "/", content_length=False, auth=self.auth(),
                             headers=["Content-Length: %d" % (MAX_BODY_BYTES + 1)]))
        r = c.read_response()
        assert_in(b"413 Content too large", r.raw)
        assert_equal(r.status_line, "HTTP/1.1 413 Content too large")
        c.wait_closed()
        c.close()

    def test_pipelining(self):
        node = self.nodes[0]
        count, best = node.rpc("getblockcount"), node.rpc("getbestblockhash")

        self.log("pipelining: two requests in one write, answered in order on one connection")
        c = self.conn()
        c.send(self.rpc_request(JSON_GETBLOCKCOUNT) + self.rpc_request(JSON_GETBESTBLOCKHASH))
        self.assert_getblockcount(c.read_response(), count)
        r = c.read_response()
        assert_equal(r.status, 200)
        assert_equal(r.json()["result"], best)
        c.assert_open()
        # and again on the same connection
        c.send(self.rpc_request(JSON_GETBESTBLOCKHASH) + self.rpc_request(JSON_GETBLOCKCOUNT))
        assert_equal(c.read_response().json()["result"], best)
        self.assert_getblockcount(c.read_response(), count)
        c.close()

        self.log("pipelining: a malformed second request: 200 first, then 400 and a close")
        c = self.conn()
        c.send(self.rpc_request(JSON_GETBLOCKCOUNT) + b"GET / HTTP/9.9\r\nHost: a\r\n\r\n")
        first = c.read_response()
        self.assert_getblockcount(first, count)
        second = c.read_response()
        assert_equal(second.status_line, "HTTP/1.1 400 Bad Request")
        c.wait_closed()
        c.close()

    def test_chunked_and_content_length(self):
        count = self.nodes[0].rpc("getblockcount")

        self.log("chunked request body, with a chunk extension")
        parts = (JSON_GETBLOCKCOUNT[:5], JSON_GETBLOCKCOUNT[5:17], JSON_GETBLOCKCOUNT[17:])
        data = self.rpc_request(chunked(*parts, ext_on=1), content_length=False,
                                headers=["Transfer-Encoding: chunked"])
        r, c = self.exchange(data)
        self.assert_getblockcount(r, count)
        # the connection goes on after a chunked body
        c.send(self.rpc_request(JSON_GETBLOCKCOUNT))
        self.assert_getblockcount(c.read_response(), count)
        c.close()

        self.log("chunked with a wrong Content-Length: chunked wins")
        data = self.rpc_request(chunked(*parts), content_length=False,
                                headers=["Content-Length: 5", "Transfer-Encoding: chunked"])
        r, c = self.exchange(data)
        self.assert_getblockcount(r, count)
        c.send(self.rpc_request(JSON_GETBLOCKCOUNT))
        self.assert_getblockcount(c.read_response(), count)
        c.close()

        self.log("Content-Length twice: differing values 400, the same value 200")
        n = len(JSON_GETBLOCKCOUNT)
        self.expect_400(self.rpc_request(JSON_GETBLOCKCOUNT, content_length=False,
                                         headers=["Content-Length: %d" % n,
                                                  "Content-Length: %d" % (n + 1)]),
                        "differing Content-Length")
        r = self.expect_status(self.rpc_request(JSON_GETBLOCKCOUNT, content_length=False,
                                                headers=["Content-Length: %d" % n] * 2),
                               200, "the same Content-Length twice")
        self.assert_getblockcount(r, count)

    def test_malformed(self):
        self.log("malformed requests: 400 and a close")
        token = base64.b64encode(("%s:%s" % self.auth()).encode())
        body = JSON_GETBLOCKCOUNT
        cl = b"Content-Length: %d\r\n" % len(body)
        cases = [
            (b"GET /\x00 HTTP/1.1\r\nHost: a\r\n\r\n", "NUL in the request line"),
            (b"GET / \r\n\r\n", "request line without a version"),
            (b"GET / HTTP/9.9\r\n\r\n", "HTTP/9.9"),
            (b"GET / NOTHTTP/1.1\r\n\r\n", "NOTHTTP/1.1"),
            (b"POST / HTTP/1.1\r\nAuthorization : Basic " + token + b"\r\n" + cl + b"\r\n" + body,
             "space before the colon"),
            (b"POST / HTTP/1.1\r\nAuthorization: Basic " + token + b"\r\nX-A: b\r\n c\r\n" + cl +
             b"\r\n" + body, "folded header line"),
            (b"POST / HTTP/1.1\r\nAuthorization: Basic " + token + b"\r\nX-A: b\r\n X-B: c\r\n" +
             cl + b"\r\n" + body, "folded header line with a colon"),
            (b"POST / HTTP/1.1\r\nAuthorization: Basic " + token + b"\r\nX-A: b\rc\r\n" + cl +
             b"\r\n" + body, "bare CR in a header value"),
        ]
        for data, what in cases:
            self.expect_400(data, what)
        # the same requests without the fault are fine
        self.expect_status(b"POST / HTTP/1.1\r\nAuthorization: Basic " + token + b"\r\nX-A: b c\r\n" +
                           cl + b"\r\n" + body, 200, "a well-formed request")

    def test_methods_and_paths(self):
        count = self.nodes[0].rpc("getblockcount")

        self.log("methods and paths: 405, 404")
        for method in ("TRACE", "DELETE", "OPTIONS", "PATCH"):
            self.expect_status(build_request(method, "/", auth=self.auth()), 405, method)
        self.expect_status(build_request("GET", "/", auth=self.auth()), 405, "GET /")
        self.expect_status(build_request("GET", "/../etc/passwd", auth=self.auth()), 404,
                           "GET /../etc/passwd")

        self.log("credentials: 401 with a challenge without them or with a wrong password")
        r = self.expect_status(build_request("POST", "/", JSON_GETBLOCKCOUNT), 401, "no credentials")
        assert_equal(r.header("WWW-Authenticate"), 'Basic realm="jsonrpc"')
        user, _ = self.auth()
        r = self.expect_status(build_request("POST", "/", JSON_GETBLOCKCOUNT, auth=(user, "wrong")),
                               401, "wrong password")
        assert_equal(r.header("WWW-Authenticate"), 'Basic realm="jsonrpc"')

        self.log("HEAD /: 405 without body bytes; the next pipelined reply follows at once")
        c = self.conn()
        c.send(build_request("HEAD", "/", auth=self.auth()) + self.rpc_request(JSON_GETBLOCKCOUNT))
        r = c.read_response(head=True)
        assert_equal(r.status_line, "HTTP/1.1 405 Method Not Allowed")
        assert_true(c.buf == b"" or c.buf.startswith(b"HTTP/1.1 200 OK\r\n"),
                    "bytes after the HEAD reply's head: %r" % c.buf[:100])
        self.assert_getblockcount(c.read_response(), count)
        c.assert_open()
        c.close()

    def test_idle_timeout(self):
        node = self.nodes[0]
        self.log("-rpcservertimeout=2: an incomplete request is dropped on idle")
        node.stop()
        node.start(["-rpcservertimeout=2"])
        c = self.conn()
        c.send(b"GET /x HTTP/1.1\r\nHost: a\r\n")
        took = c.wait_closed(timeout=10)
        assert_true(1 <= took <= 5, "closed after %.2fs, wanted 1-5 s" % took)
        self.log("  closed after %.1f s" % took)
        c.close()

        self.log("a request answered after longer than the timeout is still answered, then the "
                 "idle timer runs again")
        tip = node.rpc("getblockcount")
        c = self.conn()
        c.send(self.rpc_request(b'{"method":"waitforblockheight","params":[%d],"id":1}'
                                % (tip + 1)))
        time.sleep(3)
        c.assert_open()
        node.rpc("generatetoaddress", 1, ADDR)
        r = c.read_response()
        assert_equal(r.status, 200)
        assert_equal(r.json()["result"]["height"], tip + 1)
        assert_equal(r.json()["result"]["hash"], node.rpc("getbestblockhash"))
        took = c.wait_closed(timeout=10)
        assert_true(1 <= took <= 5, "closed after %.2fs, wanted about 2 s" % took)
        self.log("  answered, then closed on idle after %.1f s" % took)
        c.close()


if __name__ == "__main__":
    HTTPTest().main()
