#!/usr/bin/env python3
"""Records a fee-estimation history on a running Bitcoin Core regtest node, for
test/data/fees/ (what test/unit/fees_tests.c replays and compares against).

The node must run on a private datadir (no wallet needed), e.g.
    bitcoind -regtest -datadir=DIR -port=29555 -rpcport=29556 -listen=0 -connect=0 \
             -rpcuser=u -rpcpassword=p -checkblockindex=0 -checkmempool=0 -persistmempool=0
Usage: core_history.py RPCURL OUTDIR [--start=N] [--answers]
       (RPCURL like http://u:p@127.0.0.1:29556/; N blocks before the history, default 300)

It sends transactions that spend confirmed outputs only (so Core tracks every one), at
varied fee rates, replaces some (a non-block removal), and mines blocks with generateblock
choosing which mempool transactions confirm (so delays depend on the fee rate). It writes
OUTDIR/history.json: the events in order ({"tx": txid, "fee", "vsize", "height"},
{"removed": txid}, {"block": height, "txids": [...]}) and Core's estimatesmartfee and
estimaterawfee answers at the end. Stopping the node then writes its fee_estimates.dat
(after counting what is still in the mempool as unconfirmed); run again with --answers on
the restarted node (-persistmempool=0), it writes OUTDIR/answers_loaded.json: Core's answers
from that file alone.
"""
import base64
import hashlib
import json
import random
import struct
import sys
import urllib.request

URL = sys.argv[1]
OUT = sys.argv[2]
_auth = URL.split("//", 1)[1].split("@", 1)[0]
_base = URL.split("@", 1)[0].split("//")[0] + "//" + URL.split("@", 1)[1]


def rpc(method, *params):
    url = _base
    body = json.dumps({"jsonrpc": "1.0", "id": 1, "method": method, "params": list(params)})
    req = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json"})
    req.add_header("Authorization", "Basic " + base64.b64encode(_auth.encode()).decode())
    try:
        with urllib.request.urlopen(req) as r:
            res = json.loads(r.read())
    except urllib.error.HTTPError as e:
        res = json.loads(e.read())
    if res.get("error"):
        raise RuntimeError(f"{method}: {res['error']}")
    return res["result"]


def sat(btc):
    return int(round(btc * 100_000_000))


# Coins go to P2WSH(OP_TRUE): spendable without keys or a wallet (as Core's MiniWallet).
OP_TRUE_SPK = bytes([0, 32]) + hashlib.sha256(b"\x51").digest()


def cs(n):
    if n < 0xfd:
        return bytes([n])
    return b"\xfd" + struct.pack("<H", n)


def make_tx(inputs, values):
    """A segwit v2 transaction spending P2WSH(OP_TRUE) inputs [(txid, vout)] to
    P2WSH(OP_TRUE) outputs of the given sat values, signalling replaceability."""
    t = struct.pack("<i", 2) + b"\x00\x01" + cs(len(inputs))
    for txid, vout in inputs:
        t += bytes.fromhex(txid)[::-1] + struct.pack("<I", vout) + b"\x00" + \
            struct.pack("<I", 0xfffffffd)
    t += cs(len(values))
    for v in values:
        t += struct.pack("<q", v) + cs(len(OP_TRUE_SPK)) + OP_TRUE_SPK
    for _ in inputs:
        t += b"\x01\x01\x51"
    return (t + struct.pack("<I", 0)).hex()


def core_answers():
    answers = {"smart": [], "raw": []}
    for target in list(range(1, 50)) + [60, 100, 144, 200, 500, 1008]:
        for mode in ["economical", "conservative"]:
            answers["smart"].append({"target": target, "mode": mode,
                                     "result": rpc("estimatesmartfee", target, mode)})
    for target in [1, 2, 3, 4, 5, 6, 8, 10, 12, 13, 20, 24, 30, 40, 48, 49, 100, 500, 1008]:
        for thr in [0.5, 0.8, 0.85, 0.95]:
            answers["raw"].append({"target": target, "threshold": thr,
                                   "result": rpc("estimaterawfee", target, thr)})
    return answers


START = 300  # blocks mined before the history: --start=N (at least 109, for mature coins)
for arg in sys.argv[3:]:
    if arg.startswith("--start="):
        START = int(arg.split("=", 1)[1])

if "--answers" in sys.argv[3:]:
    # After a restart that loaded fee_estimates.dat: only Core's answers.
    with open(OUT + "/answers_loaded.json", "w") as f:
        json.dump(core_answers(), f, separators=(",", ":"))
    sys.exit(0)

rng = random.Random(20260518)
events = []
addr = rpc("getdescriptorinfo", "raw(" + OP_TRUE_SPK.hex() + ")")["descriptor"]
rpc("generatetodescriptor", START, addr)


def record_block(h):
    b = rpc("getblock", h)
    events.append({"block": b["height"], "txids": b["tx"]})


def record_tx(txid):
    e = rpc("getmempoolentry", txid)
    events.append({"tx": txid, "fee": sat(e["fees"]["base"]), "vsize": e["vsize"],
                   "height": e["height"], "parents": bool(e["depends"])})
    return sat(e["fees"]["base"]) * 1000 // e["vsize"]


for height in range(1, rpc("getblockcount") + 1):
    record_block(rpc("getblockhash", height))

# Split coinbases into many confirmed outputs of 0.25 BTC, so that every later transaction
# has confirmed inputs (the split transactions are in the history too).
COIN_SAT = 25_000_000
utxos = []
for height in range(1, 9):
    b = rpc("getblock", rpc("getblockhash", height), 2)
    cb = b["tx"][0]
    value = sat(cb["vout"][0]["value"])
    n = value // COIN_SAT - 1
    change = value - n * COIN_SAT - 20_000
    txid = rpc("sendrawtransaction", make_tx([(cb["txid"], 0)], [COIN_SAT] * n + [change]))
    record_tx(txid)
    utxos += [(txid, i) for i in range(n)]
record_block(rpc("generatetodescriptor", 1, addr)[0])
rng.shuffle(utxos)

RATES = [1, 2, 3, 4, 5, 7, 10, 14, 20, 28, 40, 56, 80, 110, 160, 230]
pending = {}  # txid -> (rate, entered height, input)


def send(u, rate):
    fee = int(rate * 96)
    txid = rpc("sendrawtransaction", make_tx([u], [COIN_SAT - fee]), 0)
    return txid, record_tx(txid)


ROUNDS = 90
for r in range(ROUNDS):
    tip = rpc("getblockcount")
    for _ in range(14):
        if not utxos:
            break
        u = utxos.pop()
        rate = rng.choice(RATES) + rng.random() * 0.9
        txid, fr = send(u, rate)
        pending[txid] = (fr, tip, u)
    # Replace a few low-rate ones (full RBF): the old one leaves the mempool unmined.
    lows = [t for t, (fr, h, u) in pending.items() if fr < 5000]
    for t in rng.sample(lows, min(len(lows), 1 if r % 3 == 0 else 0)):
        fr, h, u = pending.pop(t)
        before = set(rpc("getrawmempool"))
        ntxid, nfr = send(u, 60 + rng.random())
        # The replacement's removal came first in Core's notifications.
        events.insert(len(events) - 1, {"removed": t})
        assert t in before and t not in rpc("getrawmempool")
        pending[ntxid] = (nfr, tip, u)
    # Which confirm: everything above a threshold that changes from block to block, and
    # low-fee ones once they waited long enough.
    thr = rng.choice([3000, 8000, 15000, 30000, 60000])
    chosen = []
    for t, (fr, h, u) in list(pending.items()):
        age = tip - h
        if fr >= thr or (fr >= 10000 and age >= 2) or (fr >= 4000 and age >= 6) or \
                (age >= 20 and rng.random() < 0.5):
            chosen.append(t)
    for t in chosen:
        del pending[t]
    res = rpc("generateblock", addr, chosen)
    record_block(res["hash"])

answers = core_answers()

with open(OUT + "/history.json", "w") as f:
    json.dump({"events": events, "answers": answers}, f, separators=(",", ":"))
print("events", len(events), "pending", len(pending), "height", rpc("getblockcount"))
