#!/usr/bin/env python3
"""Where the RPC server listens and whom it admits: loopback only by default, -rpcbind
ignored (with Core's warning) without -rpcallowip, -rpcbind with a port, invalid
-rpcallowip refused at start-up (Core's words), -rpcallowip without -rpcbind still loopback
only, and a client outside the allowed subnets dropped without an answer, as Core's server
does (when the host has a non-loopback address to test with)."""

import socket

from framework import (BitnodeTestFramework, assert_equal, assert_in, assert_true, free_port)


def local_address():
    """A non-loopback IPv4 address of this host, or None."""
    names = []
    try:
        names += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    for target in ("192.0.2.1", "10.255.255.255", "8.8.8.8"):
        # A UDP "connect" sends nothing; it only picks the source address of the route.
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.connect((target, 9))
            names.append(s.getsockname()[0])
        except OSError:
            pass
        finally:
            s.close()
    for ip in names:
        if not ip.startswith("127."):
            return ip
    return None


def can_connect(host, port):
    s = socket.socket()
    s.settimeout(5)
    try:
        return s.connect_ex((host, port)) == 0
    finally:
        s.close()


class RPCBindTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.start_nodes_at_setup = False

    def run_test(self):
        node = self.nodes[0]
        ip = local_address()

        self.log("default: loopback only")
        node.start()
        assert_true(can_connect("127.0.0.1", node.rpc_port), "loopback bound")
        if ip:
            assert_true(not can_connect(ip, node.rpc_port), "%s not bound" % ip)
        node.stop()

        self.log("-rpcbind without -rpcallowip is ignored, with Core's warning")
        node.start(["-rpcbind=0.0.0.0"])
        assert_in("Option -rpcbind was ignored because -rpcallowip was not specified, refusing "
                  "to allow everyone to connect", open(node.debug_log).read())
        if ip:
            assert_true(not can_connect(ip, node.rpc_port), "%s not bound" % ip)
        node.stop()

        self.log("-rpcbind=addr:port with -rpcallowip")
        port2 = free_port()
        node.start(["-rpcallowip=127.0.0.1", "-rpcbind=127.0.0.1:%d" % port2], wait=False)
        node.rpc_port, old = port2, node.rpc_port
        node.wait_for_rpc()
        assert_true(not can_connect("127.0.0.1", old), "-rpcport overridden by the bind port")
        node.stop()
        node.rpc_port = old

        self.log("invalid -rpcallowip / -rpcbind stop start-up")
        node.assert_start_fails(["-rpcallowip=300.1.1.1"],
                                "Invalid -rpcallowip subnet specification: 300.1.1.1")
        node.assert_start_fails(["-rpcallowip=1.2.3.4/40"], "Invalid -rpcallowip subnet")
        for bad in ["127.0.0.1:notaport", "127.0.0.1:0", "127.0.0.1:65536", "[::1]:-1"]:
            node.assert_start_fails(["-rpcallowip=127.0.0.1", "-rpcbind=" + bad],
                                    "Error: Invalid port specified in -rpcbind: '%s'" % bad)
        node.assert_start_fails(["-rpcallowip=fc00:db8:c0:ff:ee::/80", "-cjdnsreachable"],
                                "RFC4193 is allowed only if -cjdnsreachable=0.")

        if not ip:
            self.log("no non-loopback address: skipping the 403 check")
            return
        self.log("-rpcallowip without -rpcbind: loopback only (%s not bound)" % ip)
        node.start(["-rpcallowip=%s/32" % ip])
        with socket.socket() as probe:
            assert_true(probe.connect_ex((ip, node.rpc_port)) != 0, "not bound on " + ip)
        node.stop()
        self.log("a client outside -rpcallowip is dropped without an answer (%s)" % ip)
        node.start(["-rpcallowip=10.255.255.0/24", "-rpcbind=127.0.0.1", "-rpcbind=" + ip])
        import http.client
        conn = http.client.HTTPConnection(ip, node.rpc_port, timeout=30)
        try:
            node.http('{"method":"uptime","id":1}', conn=conn)
            raise AssertionError("an answer to a client outside -rpcallowip")
        except (ConnectionError, http.client.HTTPException):
            pass
        conn.close()
        assert_equal(type(node.rpc("uptime")), int)  # loopback is always allowed
        node.stop()
        node.start(["-rpcallowip=%s/32" % ip, "-rpcbind=127.0.0.1", "-rpcbind=" + ip])
        conn = http.client.HTTPConnection(ip, node.rpc_port, timeout=30)
        status, _, _ = node.http('{"method":"uptime","id":1}', conn=conn)
        conn.close()
        assert_equal(status, 200)


if __name__ == "__main__":
    RPCBindTest().main()
