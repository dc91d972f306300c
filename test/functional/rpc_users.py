#!/usr/bin/env python3
"""RPC authentication: the cookie file (format, mode 0600, removed at stop), -rpcuser /
-rpcpassword, -rpcauth lines in Core's format (several users), 401 with WWW-Authenticate on
missing or wrong credentials (after a delay), and bitnode-cli's message on 401."""

import os
import stat
import time

from framework import BitnodeTestFramework, assert_equal, assert_in, assert_true

# Bitcoin Core's test/functional/rpc_users.py vector.
RT2_AUTH = "rt2:f8607b1a88861fac29dfccf9b52ff9f$ff36a0c23c8c62b4846112e50fa888416e94c17bfd4c42f88fd8f55ec6a3137e"
RT2_PASS = "8/F3uMDw4KSEbw96U3CA1C4X05dkHDN2BPFjTgZW4KI="


def make_rpcauth(user, salt, password):
    import hashlib
    import hmac
    return "%s:%s$%s" % (user, salt, hmac.new(salt.encode(), password.encode(),
                                               hashlib.sha256).hexdigest())


class RPCUsersTest(BitnodeTestFramework):
    def set_test_params(self):
        self.num_nodes = 1
        self.extra_args = [["-rpcauth=" + RT2_AUTH,
                            "-rpcauth=" + make_rpcauth("alice", "a1b2c3", "alicepw")]]

    def run_test(self):
        node = self.nodes[0]
        cookie = os.path.join(node.net_dir, ".cookie")

        self.log("cookie: __cookie__:<64 hex>, mode 0600")
        with open(cookie) as f:
            user, _, secret = f.read().partition(":")
        assert_equal(user, "__cookie__")
        assert_equal(len(secret), 64)
        int(secret, 16)
        assert_equal(stat.S_IMODE(os.stat(cookie).st_mode), 0o600)

        self.log("rpcauth users (Core's vector and a second line)")
        body = '{"method":"uptime","id":1}'
        assert_equal(node.http(body, auth=("rt2", RT2_PASS))[0], 200)
        assert_equal(node.http(body, auth=("alice", "alicepw"))[0], 200)
        assert_equal(node.http(body, auth=("__cookie__", secret))[0], 200)

        self.log("wrong credentials: 401 with a challenge, after a delay")
        for auth in [("rt2", "wrong"), ("alice", RT2_PASS), ("nobody", "x"), ("__cookie__", secret[:-1]),
                     ("rt2", "")]:
            start = time.time()
            status, headers, data = node.http(body, auth=auth)
            assert_equal(status, 401)
            assert_equal(headers.get("WWW-Authenticate"), 'Basic realm="jsonrpc"')
            assert_equal(data, b"")
            assert_true(time.time() - start >= 0.2, "401 delayed")
        status, headers, _ = node.http(body, auth=False)
        assert_equal(status, 401)
        assert_equal(headers.get("WWW-Authenticate"), 'Basic realm="jsonrpc"')
        status, _, _ = node.http(body, auth=False, headers={"Authorization": "Basic !!!"})
        assert_equal(status, 401)

        self.log("bitnode-cli: cookie by default, and Core's message on bad credentials")
        r = node.cli("uptime", check=True)
        r = node.cli("-rpcuser=rt2", "-rpcpassword=wrong", "uptime")
        assert_equal(r.returncode, 1)
        assert_equal(r.stderr, "error: Authorization failed: Incorrect rpcuser or rpcpassword\n")
        r = node.cli("-rpcuser=rt2", "-rpcpassword=" + RT2_PASS, "uptime", check=True)
        r = node.cli("-rpcuser=alice", "-stdinrpcpass", "uptime", input="alicepw\n", check=True)

        self.log("the cookie is removed at stop")
        node.stop()
        assert_true(not os.path.exists(cookie), "cookie removed")

        self.log("-rpcuser/-rpcpassword: no cookie, and the pair works")
        node.auth = ("bob", "bobpw")
        node.start(["-rpcuser=bob", "-rpcpassword=bobpw"])
        assert_true(not os.path.exists(cookie), "no cookie")
        assert_equal(node.http(body, auth=("bob", "bobpw"))[0], 200)
        assert_equal(node.http(body, auth=("bob", "bobpw2"))[0], 401)
        r = node.cli("uptime")
        assert_equal(r.returncode, 1)
        assert_in("Could not locate RPC credentials", r.stderr)
        node.stop()
        node.auth = None

        self.log("a malformed -rpcauth line stops start-up with Core's words")
        for bad in ["-rpcauth", "-rpcauth=foo", "-rpcauth=foo:bar:baz", "-rpcauth=foo$bar$baz"]:
            node.assert_start_fails([bad], "Error: Unable to start HTTP server. See debug log "
                                           "for details.")
            with open(node.debug_log) as f:
                assert_in("Invalid -rpcauth argument.", f.read())

        self.log("-rpcwhitelist: an unlisted method gets 403, the default refuses the others")
        node.start(["-rpcauth=" + make_rpcauth("w1", "s1", "p1"),
                    "-rpcauth=" + make_rpcauth("w2", "s2", "p2"),
                    "-rpcwhitelist=w1:getblockcount, getbestblockhash",
                    "-rpcwhitelist=w1:getblockcount", "-rpcwhitelistdefault=0"])
        call = lambda m, auth: node.http('{"method":"%s","id":1}' % m, auth=auth)
        assert_equal(call("getblockcount", ("w1", "p1"))[0], 200)
        status, _, data = call("getbestblockhash", ("w1", "p1"))
        assert_equal((status, data), (403, b""))
        assert_equal(node.http('[{"method":"getblockcount"},{"method":"uptime"}]',
                               auth=("w1", "p1"))[0], 403)
        assert_equal(call("uptime", ("w2", "p2"))[0], 200)
        node.stop()
        node.start(["-rpcauth=" + make_rpcauth("w1", "s1", "p1"),
                    "-rpcauth=" + make_rpcauth("w2", "s2", "p2"),
                    "-rpcwhitelist=w1:getblockcount",
                    "-rpcwhitelist=__cookie__:getblockcount,stop,uptime"])
        assert_equal(call("uptime", ("w2", "p2"))[0], 403)
        with open(node.debug_log) as f:
            assert_in("RPC User w2 not allowed to call any methods", f.read())
        node.stop()


if __name__ == "__main__":
    RPCUsersTest().main()
