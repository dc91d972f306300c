#!/usr/bin/env python3
"""What the signature cache saves when a block's transactions came through the mempool.

Two regtest nodes on one chain (disconnected once synced): A has the block's transactions in its pool (their signatures
were checked, and cached, on acceptance); B runs -blocksonly, so its pool is empty. The same
block (generateblock submit=false on A) is submitted to B, then to A, and each submitblock is
timed; the nodes' shutdown logs give the signature verifications that reached libsecp256k1.
Repeated ROUNDS times with fresh transactions, B and A alternating first.

  contrib/bench/sigcache-connect.py BUILDDIR [INPUTS_PER_BLOCK=2000] [ROUNDS=3] [PAR=1]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "functional"))
from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, hash160, segwit_address,  # noqa: E402
                        sign_p2wpkh)

build = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
PAR = sys.argv[4] if len(sys.argv) > 4 else "1"
root = tempfile.mkdtemp(prefix="sigcache_bench_")
ports = {"a": (29811, 29812), "b": (29821, 29822)}
procs = {}


def start(name, extra):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    p2p, rpc = ports[name]
    procs[name] = subprocess.Popen(
        [os.path.join(build, "bitnoded"), "-regtest", "-datadir=" + d, "-port=%d" % p2p,
         "-rpcport=%d" % rpc, "-rpcuser=u", "-rpcpassword=p", "-printtoconsole=0",
         "-dnsseed=0", "-fixedseeds=0", "-par=" + PAR, "-maxtipage=2000000000",
         "-rpcthreads=4", "-whitelist=noban@127.0.0.1"] + extra,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rpc(name, method, *params):
    import http.client
    import base64
    c = http.client.HTTPConnection("127.0.0.1", ports[name][1], timeout=600)
    body = json.dumps({"jsonrpc": "1.0", "id": 1, "method": method, "params": list(params)})
    auth = base64.b64encode(b"u:p").decode()
    c.request("POST", "/", body, {"Authorization": "Basic " + auth})
    r = json.loads(c.getresponse().read())
    if r.get("error"):
        raise RuntimeError("%s: %s" % (method, r["error"]))
    return r["result"]


def wait(f, what, t=120):
    end = time.time() + t
    while time.time() < end:
        try:
            if f():
                return
        except Exception:
            pass
        time.sleep(0.2)
    raise RuntimeError("timeout: " + what)


def verifies(name):
    with open(os.path.join(root, name, "regtest", "debug.log")) as f:
        return int(re.findall(r"signature verifies: (\d+) ECDSA", f.read())[-1])


try:
    start("a", [])
    start("b", ["-blocksonly", "-connect=127.0.0.1:%d" % ports["a"][0]])
    wait(lambda: rpc("a", "getblockcount") == 0 and rpc("b", "getblockcount") == 0, "up")
    key = Key(0x51C)
    addr = segwit_address("bcrt", 0, hash160(key.pubkey))
    spk = bytes([0, 20]) + hash160(key.pubkey)
    hashes = rpc("a", "generatetoaddress", 100 + ROUNDS, addr)
    # One coinbase per round, split into N outputs of key's.
    splits = []
    for r in range(ROUNDS):
        cb = rpc("a", "getblock", hashes[r], 2)["tx"][0]
        value = int(round(cb["vout"][0]["value"] * 1e8))
        each = (value - 100000) // N
        tx = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                [TxOut(each, spk) for _ in range(N)])
        sign_p2wpkh(tx, 0, key, value)
        rpc("a", "sendrawtransaction", tx.hex(), 0)
        splits.append((tx, each))
    rpc("a", "generatetoaddress", 1, addr)
    tip = rpc("a", "getbestblockhash")
    wait(lambda: rpc("b", "getbestblockhash") == tip, "b synced")
    # From here on each node gets the measured blocks by submitblock only.
    for name in ("a", "b"):
        rpc(name, "setnetworkactive", False)
    wait(lambda: rpc("a", "getconnectioncount") == 0 and rpc("b", "getconnectioncount") == 0,
         "disconnected")
    rows = []
    for r in range(ROUNDS):
        split, each = splits[r]
        txids = []
        for i in range(N):
            tx = Tx([TxIn(split.outpoint(i), b"", 0xFFFFFFFD)], [TxOut(each - 200, spk)])
            sign_p2wpkh(tx, 0, key, each)
            txids.append(rpc("a", "sendrawtransaction", tx.hex()))
        assert len(rpc("b", "getrawmempool")) == 0
        block = rpc("a", "generateblock", addr, txids, False)["hex"]
        order = ("b", "a") if r % 2 == 0 else ("a", "b")
        t = {}
        for name in order:
            t0 = time.perf_counter()
            res = rpc(name, "submitblock", block)
            t[name] = time.perf_counter() - t0
            assert res is None, res
        rows.append(t)
        print("round %d: %d inputs: submitblock %.1f ms without the cache (B), %.1f ms with it "
              "(A)" % (r + 1, N, t["b"] * 1000, t["a"] * 1000), flush=True)
    for name in ("a", "b"):
        rpc(name, "stop")
    for p in procs.values():
        p.wait(timeout=120)
    va, vb = verifies("a"), verifies("b")
    ta = sorted(x["a"] for x in rows)[len(rows) // 2]
    tb = sorted(x["b"] for x in rows)[len(rows) // 2]
    print("median of %d rounds: %.1f ms (B, empty pool) vs %.1f ms (A, transactions cached): "
          "%.2fx; ECDSA verifications at shutdown: A %d, B %d" %
          (ROUNDS, tb * 1000, ta * 1000, tb / ta, va, vb))
finally:
    for p in procs.values():
        if p.poll() is None:
            p.kill()
    shutil.rmtree(root, ignore_errors=True)
