"""A small functional test framework for bitnode (Python 3 standard library only).

A test subclasses BitnodeTestFramework, sets num_nodes / extra_args in set_test_params(),
and writes run_test(). main() creates a temporary folder with one datadir per node, starts
the nodes on free loopback ports, runs the test, and always stops or kills every process it
started. On failure it keeps the temporary folder and prints the tail of each node's
debug.log.

The binaries are taken from $BITNODE_BUILDDIR (the build folder holding bitnoded).
"""

import base64
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

CHAIN = "regtest"


class JSONRPCError(Exception):
    """An error object returned by the node: .code and .message as Core's."""

    def __init__(self, error, http_status=None):
        super().__init__("%s (%s)" % (error.get("message"), error.get("code")))
        self.error = error
        self.code = error.get("code")
        self.message = error.get("message")
        self.http_status = http_status


class FailedCheck(AssertionError):
    pass


def assert_equal(a, b, *more):
    if a != b or any(a != m for m in more):
        raise FailedCheck("not equal: %r != %r %s" % (a, b, " ".join(repr(m) for m in more)))


def assert_true(cond, what=""):
    if not cond:
        raise FailedCheck("assertion failed: %s" % what)


def assert_in(needle, haystack):
    if needle not in haystack:
        raise FailedCheck("%r not found in %r" % (needle, haystack))


def assert_raises_rpc_error(code, message_part, fn, *args, **kwargs):
    """fn(*args) must raise JSONRPCError with this code and a message containing the part."""
    try:
        fn(*args, **kwargs)
    except JSONRPCError as e:
        if code is not None and e.code != code:
            raise FailedCheck("unexpected error code %s (wanted %s): %s" % (e.code, code, e.message))
        if message_part is not None and message_part not in e.message:
            raise FailedCheck("unexpected error message %r (wanted %r)" % (e.message, message_part))
        return e
    raise FailedCheck("no JSON-RPC error raised")


def wait_until(predicate, timeout=30, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise FailedCheck("timed out waiting for %s" % what)


_given_ports = set()


def free_port(with_next=False):
    """A loopback port that was free a moment ago and that this process has not handed out
    (with_next: the port after it too, handed out with it: a node listening on -port also
    listens on 127.0.0.1 at -port + 1, Core's default Tor service target).

    Taken below the kernel's ephemeral range (32768-60999 by default): a port the kernel
    picked for a bind to port 0 could be picked again for the next one (a test's SOCKS5
    server took a node's RPC port that way) or for an outgoing connection, before the node
    binds it."""
    rng = random.Random()
    for _ in range(1000):
        port = rng.randrange(20000, 32000)
        wanted = [port, port + 1] if with_next else [port]
        if any(p in _given_ports for p in wanted):
            continue
        free = True
        for p in wanted:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                free = False
            finally:
                s.close()
        if not free:
            continue
        _given_ports.update(wanted)
        return port
    raise RuntimeError("no free loopback port in 20000-32000")


def builddir():
    d = os.environ.get("BITNODE_BUILDDIR")
    if not d:
        raise RuntimeError("set BITNODE_BUILDDIR to the build folder holding bitnoded")
    return d


class TestNode:
    """One bitnoded process with its own datadir and RPC port."""

    def __init__(self, index, root, extra_args=None):
        self.index = index
        self.datadir = os.path.join(root, "node%d" % index)
        self.net_dir = os.path.join(self.datadir, CHAIN)
        os.makedirs(self.datadir, exist_ok=True)
        self.rpc_port = free_port()
        self.p2p_port = free_port(with_next=True)
        self.extra_args = list(extra_args or [])
        self.process = None
        self.stderr_path = os.path.join(self.datadir, "stderr.txt")
        self.stdout_path = os.path.join(self.datadir, "stdout.txt")
        self.auth = None  # (user, password); None: the cookie
        self.build = None  # another build folder's binaries (another backend), None: ours
        with open(os.path.join(self.datadir, "bitnode.conf"), "w") as f:
            # rpcdoccheck: every RPC result is checked against its method's declared result
            # (as in Core's test framework); a mismatch fails the call.
            # P2P: listening on a port of its own, no DNS or fixed seeds (tests dial only
            # loopback addresses they chose); v1 transport unless a test asks for v2
            # (-v2transport=1), as Core's test framework starts its nodes: the test peers
            # speak v1, and a v1 node answers them as they expect. discover=0 (Core's
            # framework too): the machine's own routable addresses, if it has any, are not
            # the node's, so that no test sees the node announce itself unless it asks.
            f.write("regtest=1\nrpcdoccheck=1\ndnsseed=0\nfixedseeds=0\nv2transport=0\n"
                    "discover=0\n[regtest]\nrpcport=%d\n"
                    "port=%d\nlisten=1\nprinttoconsole=0\n" % (self.rpc_port, self.p2p_port))

    @property
    def bitnoded(self):
        return os.path.join(self.build or builddir(), "bitnoded")

    @property
    def bitnode_cli(self):
        return os.path.join(self.build or builddir(), "bitnode-cli")

    @property
    def debug_log(self):
        return os.path.join(self.net_dir, "debug.log")

    def args(self, extra_args=None):
        return [self.bitnoded, "-datadir=" + self.datadir] + self.extra_args + list(extra_args or [])

    def start(self, extra_args=None, wait=True):
        self.stderr_file = open(self.stderr_path, "w")
        self.stdout_file = open(self.stdout_path, "w")
        self.process = subprocess.Popen(self.args(extra_args), stdout=self.stdout_file,
                                        stderr=self.stderr_file)
        if wait:
            self.wait_for_rpc()

    def stderr_text(self):
        with open(self.stderr_path) as f:
            return f.read()

    def wait_for_rpc(self, timeout=30):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise FailedCheck("bitnoded exited with %s during start-up: %s" %
                                  (self.process.returncode, self.stderr_text()))
            try:
                self.rpc("uptime")
                return
            except JSONRPCError as e:
                if e.code != -28:
                    raise
                last = e
            except (OSError, FileNotFoundError, http.client.HTTPException) as e:
                last = e
            time.sleep(0.05)
        raise FailedCheck("RPC did not come up: %r" % last)

    def credentials(self):
        if self.auth:
            return self.auth
        with open(os.path.join(self.net_dir, ".cookie")) as f:
            user, _, password = f.read().strip().partition(":")
        return user, password

    def http(self, body, auth=None, method="POST", path="/", headers=None, conn=None):
        """Sends one raw HTTP request; returns (status, headers dict, body bytes)."""
        own = conn is None
        if own:
            conn = http.client.HTTPConnection("127.0.0.1", self.rpc_port, timeout=60)
        h = {"Content-Type": "application/json"}
        if auth is None:
            auth = self.credentials()
        if auth is not False:
            token = base64.b64encode(("%s:%s" % auth).encode()).decode()
            h["Authorization"] = "Basic " + token
        h.update(headers or {})
        if isinstance(body, str):
            body = body.encode()
        conn.request(method, path, body=body, headers=h)
        resp = conn.getresponse()
        data = resp.read()
        result = (resp.status, dict(resp.getheaders()), data)
        if own:
            conn.close()
        return result

    def rpc(self, method, *params, **named):
        """Calls method (JSON-RPC 1.0 like bitcoin-cli); returns the result or raises
        JSONRPCError."""
        p = named if named else list(params)
        status, _, data = self.http(json.dumps({"method": method, "params": p, "id": 1}))
        if status == 401:
            raise OSError("401 Unauthorized")
        reply = json.loads(data)
        if reply.get("error") is not None:
            raise JSONRPCError(reply["error"], status)
        return reply["result"]

    def cli(self, *args, input=None, check=False):
        """Runs bitnode-cli against this node; returns CompletedProcess (text)."""
        cmd = [self.bitnode_cli, "-datadir=" + self.datadir] + list(args)
        r = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=120)
        if check and r.returncode != 0:
            raise FailedCheck("bitnode-cli %s failed (%d): %s" % (args, r.returncode, r.stderr))
        return r

    def wait_exit(self, timeout=30):
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise FailedCheck("bitnoded did not exit within %ds" % timeout)

    def stop(self, expected_rc=0):
        """The stop RPC, then wait for a clean exit."""
        assert_equal(self.rpc("stop"), "bitnode stopping")
        rc = self.wait_exit()
        assert_equal(rc, expected_rc)
        self.process = None

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def pid_from_file(self):
        try:
            with open(os.path.join(self.net_dir, "bitcoind.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def assert_start_fails(self, extra_args, expected_stderr):
        """Starts bitnoded with extra_args and expects a failed start-up with this text."""
        r = subprocess.run(self.args(extra_args), capture_output=True, text=True, timeout=20)
        if r.returncode == 0:
            raise FailedCheck("bitnoded %s started but should have failed" % extra_args)
        assert_in(expected_stderr, r.stderr)
        return r


class BitnodeTestFramework:
    num_nodes = 1
    extra_args = None  # list of per-node lists
    start_nodes_at_setup = True

    def set_test_params(self):
        pass

    def run_test(self):
        raise NotImplementedError

    def log(self, msg):
        print("%s %s" % (time.strftime("%H:%M:%S"), msg), flush=True)

    def main(self):
        self.set_test_params()
        self.tmpdir = tempfile.mkdtemp(prefix="bitnode_func_")
        self.nodes = []
        self.daemon_pids = []  # processes that forked away (-daemon), killed at the end
        ok = False
        try:
            for i in range(self.num_nodes):
                args = self.extra_args[i] if self.extra_args else []
                self.nodes.append(TestNode(i, self.tmpdir, args))
            if self.start_nodes_at_setup:
                for n in self.nodes:
                    n.start()
            self.run_test()
            for n in self.nodes:
                if n.process is not None and n.process.poll() is None:
                    n.stop()
            ok = True
        except Exception:
            traceback.print_exc()
        finally:
            for n in self.nodes:
                n.kill()
            for pid in self.daemon_pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        if ok:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            print("Tests successful")
            sys.exit(0)
        print("Test failed; datadirs kept in %s" % self.tmpdir)
        for n in self.nodes:
            for path in (n.debug_log, n.stderr_path):
                if os.path.exists(path):
                    print("---- node%d %s (last 30 lines)" % (n.index, os.path.basename(path)))
                    with open(path, errors="replace") as f:
                        for line in f.readlines()[-30:]:
                            print("  " + line.rstrip())
        sys.exit(1)
