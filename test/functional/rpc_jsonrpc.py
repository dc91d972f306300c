#!/usr/bin/env python3
"""The JSON-RPC interface over HTTP: Core's error codes and HTTP statuses for malformed JSON,
invalid requests, unknown methods and wrong parameters (JSON-RPC 1.0 and 2.0), batches,
notifications, named parameters, keep-alive, non-POST and unknown paths, the request body
limit (413), malformed HTTP, and the bounded work queue (503)."""

import http.client
import json
import socket
import threading

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true,
                       assert_raises_rpc_error)


def reply(node, body, **kw):
    status, headers, data = node.http(body, **kw)
    return status, (json.loads(data) if data else None)


class JSONRPCTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]

        self.log("parse errors: HTTP 500, -32700, id null")
        for bad in ['{"method":', '', 'nonsense', '{"method":"uptime"} x']:
            status, r = reply(node, bad)
            assert_equal(status, 500)
            assert_equal(r, {"result": None, "error": {"code": -32700, "message": "Parse error"},
                             "id": None})
        status, r = reply(node, '"just a string"')
        assert_equal((status, r["error"]["code"], r["error"]["message"]),
                     (500, -32700, "Top-level object parse error"))

        self.log("invalid requests: HTTP 400, -32600")
        for body, msg in [('{"id":1}', "Missing method"),
                          ('{"method":1,"id":1}', "Method must be a string"),
                          ('{"method":"uptime","params":"x","id":1}', "Params must be an array or object"),
                          ('{"jsonrpc":"3.0","method":"uptime","id":1}', "JSON-RPC version not supported"),
                          ('{"jsonrpc":2,"method":"uptime","id":1}', "jsonrpc field must be a string")]:
            status, r = reply(node, body)
            assert_equal(status, 400)
            assert_equal(r["error"], {"code": -32600, "message": msg})
            assert_equal(r["id"], 1)

        self.log("unknown method: 404 in JSON-RPC 1.0, 200 with an error object in 2.0")
        status, r = reply(node, '{"method":"nosuch","params":[],"id":"a"}')
        assert_equal(status, 404)
        assert_equal(r, {"result": None, "error": {"code": -32601, "message": "Method not found"},
                         "id": "a"})
        status, r = reply(node, '{"jsonrpc":"2.0","method":"nosuch","params":[],"id":"a"}')
        assert_equal(status, 200)
        assert_equal(r, {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"},
                         "id": "a"})
        status, r = reply(node, '{"jsonrpc":"2.0","method":"uptime","id":5}')
        assert_equal(status, 200)
        assert_equal(sorted(r.keys()), ["id", "jsonrpc", "result"])

        self.log("wrong parameters: -3 for types, -1 with the help text for counts, -8 for names")
        e = assert_raises_rpc_error(-3, "Wrong type passed", node.rpc, "help", 5)
        assert_in('"Position 1 (command)": "JSON value of type number is not of expected type string"',
                  e.message)
        assert_equal(e.http_status, 500)
        e = assert_raises_rpc_error(-1, "uptime\n\nReturns the total uptime", node.rpc, "uptime", 1)
        assert_raises_rpc_error(-8, "Unknown named parameter nosuch", node.rpc, "help", nosuch="x")
        assert_raises_rpc_error(-8, "unknown logging category foo", node.rpc, "logging", ["foo"])
        assert_raises_rpc_error(-3, "JSON value of type string is not of expected type array",
                                node.rpc, "logging", "net")

        self.log("named parameters and the args array")
        assert_equal(node.rpc("echo", arg1="b", arg3=4), [None, "b", None, 4])
        assert_equal(node.rpc("echo", args=[1, 2], arg2=3), [1, 2, 3])
        assert_raises_rpc_error(-8, "Parameter arg0 specified twice both as positional and named argument",
                                node.rpc, "echo", args=[1], arg0=2)
        assert_in("help ( \"command\" )", node.rpc("help", command="help"))
        # A key given twice (bitcoin-cli -named sends args=[...] and then the extras as args).
        status, r = reply(node, '{"method": "echo", "params": {"args": [0, 1], "arg2": 2, '
                                '"args": [4]}, "id": 1}')
        assert_equal(r["error"], {"code": -8, "message": "Parameter args specified multiple times"})

        self.log("each request is logged with Core's words, its id as given")
        node.rpc("logging", ["rpc"])
        reply(node, '{"method": "getblockcount", "params": [], "id": "my\\nrpcid"}')
        reply(node, '{"method": "nosuch", "id": 7}')
        log = open(node.debug_log).read()
        assert_in("ThreadRPCServer method=getblockcount user=", log)
        assert_in(" id=myrpcid\n", log)
        assert_in("ThreadRPCServer method=nosuch user=", log)
        assert_in(" id=7\n", log)

        self.log("batches: one reply per request that is not a notification")
        batch = [{"method": "echo", "params": [1], "id": 1},
                 {"method": "nosuch", "id": 2},
                 {"jsonrpc": "2.0", "method": "echo", "params": [9]},
                 [],
                 {"jsonrpc": "2.0", "method": "echo", "params": {"arg0": 3}, "id": 3}]
        status, r = reply(node, json.dumps(batch))
        assert_equal(status, 200)
        assert_equal(r, [{"result": [1], "error": None, "id": 1},
                         {"result": None, "error": {"code": -32601, "message": "Method not found"}, "id": 2},
                         {"result": None, "error": {"code": -32600, "message": "Invalid Request object"}, "id": None},
                         {"jsonrpc": "2.0", "result": [3], "id": 3}])
        status, r = reply(node, "[]")
        assert_equal((status, r), (200, []))
        status, r = reply(node, '[{"jsonrpc":"2.0","method":"uptime"}]')
        assert_equal((status, r), (204, None))
        status, r = reply(node, '{"jsonrpc":"2.0","method":"uptime"}')
        assert_equal((status, r), (204, None))

        self.log("HTTP/1.1 keep-alive: several requests on one connection")
        conn = http.client.HTTPConnection("127.0.0.1", node.rpc_port, timeout=30)
        socks = set()
        for i in range(5):
            status, headers, data = node.http('{"method":"echo","params":[%d],"id":%d}' % (i, i),
                                              conn=conn)
            assert_equal(status, 200)
            assert_equal(headers.get("Content-Type"), "application/json")
            assert_equal(json.loads(data)["result"], [i])
            socks.add(id(conn.sock))
        assert_equal(len(socks), 1)
        conn.close()

        self.log("only POST, only / (no /wallet/: Core built without a wallet has none)")
        assert_equal(node.http("", method="GET")[0], 405)
        assert_equal(node.http('{"method":"uptime","id":1}', path="/other")[0], 404)
        assert_equal(node.http('{"method":"uptime","id":1}', path="/wallet/w1")[0], 404)

        self.log("a body over the limit gets 413")
        s = socket.create_connection(("127.0.0.1", node.rpc_port), timeout=30)
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\n\r\n")
        data = s.recv(4096)
        s.close()
        assert_true(data.startswith(b"HTTP/1.1 413"), "413: %r" % data[:40])

        self.log("malformed HTTP does not hurt the server")
        for junk in [b"GARBAGE\r\n\r\n", b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                     b"\x00\xff" * 1000 + b"\r\n\r\n", b"POST / HTTP/1.1\r\n" + b"X: " + b"a" * 20000 + b"\r\n\r\n",
                     b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"meth"]:
            s = socket.create_connection(("127.0.0.1", node.rpc_port), timeout=30)
            try:
                s.sendall(junk)
                s.shutdown(socket.SHUT_WR)
                s.recv(4096)
            except OSError:
                pass
            s.close()
        assert_equal(type(node.rpc("uptime")), int)
        node.stop()

        self.log("a full work queue answers 503")
        node.start(["-rpcthreads=1", "-rpcworkqueue=1"])
        statuses = []
        lock = threading.Lock()

        def slow():
            # A wrong password keeps the only worker busy for 250 ms.
            st, _, data = node.http('{"method":"uptime","id":1}', auth=("x", "y"))
            with lock:
                statuses.append((st, data))
        threads = [threading.Thread(target=slow) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(st for st, _ in statuses)
        assert_in(503, codes)
        assert_in(401, codes)
        assert_in((503, b"Work queue depth exceeded"), statuses)
        assert_equal(type(node.rpc("uptime")), int)

        self.log("Core's defaults (16 workers, a queue of 64): 48 slow requests at once, no 503")
        node.stop()
        node.start()
        statuses.clear()
        threads = [threading.Thread(target=slow) for _ in range(48)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert_equal(sorted(st for st, _ in statuses), [401] * 48)  # 4 and 16 gave 28 503s


if __name__ == "__main__":
    JSONRPCTest().main()
