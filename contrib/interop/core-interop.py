#!/usr/bin/env python3
"""bitnoded beside Bitcoin Core on regtest (not part of the suite: CI has no Core).

    contrib/interop/core-interop.py --core CORE_BIN_DIR --bitnode BUILD_DIR [--tmp DIR]
                                    [--rounds v2-core-dials,v2-bitnode-dials,v1-core-dials]

CORE_BIN_DIR holds bitcoind and bitcoin-cli (../shared/tools/build-core.sh OUT leaves them in
OUT/bin); BUILD_DIR holds bitnoded. Each round starts the two nodes afresh and connects them:
over BIP324's v2 transport (both nodes' default) with Core dialling bitnoded, then with
bitnoded dialling Core, then over v1 (-v2transport=0 on both); a v2 round first checks that
both ends report transport_protocol_type "v2" and the same session_id. In every round each
step below must hold, or the script stops with the round's and step's names and exits 1:

  1. Core syncs 105 blocks bitnoded made with generatetoaddress; bitnoded syncs 5 of Core's.
  2. A transaction sent to bitnoded reaches Core's pool, and one sent to Core reaches
     bitnoded's (signed here, in Python, spending matured coinbases).
  3. A block bitnoded built by getblocktemplate + submitblock (the transactions of step 2)
     is accepted by Core; both pools end empty.
  4. A block Core mines over transactions bitnoded already has reaches bitnoded as a compact
     block and is reconstructed from its pool without getblocktxn; and the other way round.
  5. A block built here from Core's getblocktemplate is submitted to bitnoded, which accepts
     it and relays it to Core.
  6. Both nodes report the same tip and the same UTXO set hash (hash_serialized_3).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "test", "functional"))
from blocktools import (Key, OutPoint, Tx, TxIn, TxOut, P2WSH_TRUE, block_from_template,  # noqa
                        hash160, segwit_address, sign_p2wpkh)


class Node:
    def __init__(self, name, cli, rpcport):
        self.name, self.cli_path, self.rpcport, self.proc = name, cli, rpcport, None

    def __call__(self, *args):
        argv = [self.cli_path, "-regtest", "-rpcport=%d" % self.rpcport, "-rpcuser=u",
                "-rpcpassword=p"]
        argv += [a if isinstance(a, str) else json.dumps(a) for a in args]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if out.returncode:
            raise RuntimeError("%s %s: %s" % (self.name, args[0], out.stderr.strip()))
        text = out.stdout.strip()
        try:
            return json.loads(text)
        except ValueError:
            return text


def wait(cond, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if cond():
                return
        except RuntimeError:
            pass
        time.sleep(0.3)
    raise AssertionError("timed out: " + what)


def check(ok, what):
    if not ok:
        raise AssertionError(what)
    print("ok:", what, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--core", required=True, help="directory with bitcoind and bitcoin-cli")
    ap.add_argument("--bitnode", required=True, help="build directory with bitnoded")
    ap.add_argument("--tmp", help="work directory (default: a new temporary one)")
    ap.add_argument("--rounds", default="v2-core-dials,v2-bitnode-dials,v1-core-dials",
                    help="comma-separated rounds: TRANSPORT-DIALER-dials (v1|v2, core|bitnode)")
    a = ap.parse_args()
    root = a.tmp or tempfile.mkdtemp(prefix="bitnode-interop-")
    shutil.rmtree(root, ignore_errors=True)
    for name in a.rounds.split(","):
        transport, dialer, _ = name.split("-")
        print("== round", name)
        if one_round(a, os.path.join(root, name), transport, dialer) != 0:
            return 1
    print("all rounds passed; logs in", root)
    return 0


def one_round(a, root, transport, dialer):
    for d in ("core", "bn"):
        os.makedirs(os.path.join(root, d))
    cport, crpc, bport, brpc = 29711, 29712, 29721, 29722
    common = ["-regtest", "-rpcuser=u", "-rpcpassword=p", "-printtoconsole=0", "-dnsseed=0",
              "-fixedseeds=0", "-whitelist=noban@127.0.0.1", "-debug=net", "-debug=cmpctblock",
              "-debug=mempool", "-v2transport=%d" % (transport == "v2")]
    core = Node("core", os.path.join(a.core, "bitcoin-cli"), crpc)
    bn = Node("bitnode", os.path.join(a.core, "bitcoin-cli"), brpc)
    core_dials = ["-connect=127.0.0.1:%d" % bport] if dialer == "core" else ["-connect=0"]
    bn_dials = ["-connect=127.0.0.1:%d" % cport] if dialer == "bitnode" else ["-connect=0"]
    core.proc = subprocess.Popen(
        [os.path.join(a.core, "bitcoind"), "-datadir=" + os.path.join(root, "core"),
         "-port=%d" % cport, "-rpcport=%d" % crpc, "-bind=127.0.0.1:%d" % cport,
         "-disablewallet", "-listenonion=0"] + core_dials + common,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bn.proc = subprocess.Popen(
        [os.path.join(a.bitnode, "bitnoded"), "-datadir=" + os.path.join(root, "bn"),
         "-port=%d" % bport, "-rpcport=%d" % brpc, "-listen=1"] + bn_dials + common,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run(core, bn, transport)
        print("all steps passed; logs in", root)
        return 0
    except AssertionError as e:
        print("FAILED:", e, "; logs in", root)
        return 1
    finally:
        for n in (core, bn):
            try:
                n("stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        for n in (core, bn):
            try:
                n.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                n.proc.kill()


def run(core, bn, transport):
    wait(lambda: core("getblockcount") == 0 and bn("getblockcount") == 0, "both nodes up")
    wait(lambda: len(core("getpeerinfo")) == 1 and len(bn("getpeerinfo")) == 1 and
         core("getpeerinfo")[0]["version"] > 0 and bn("getpeerinfo")[0]["version"] > 0,
         "connected")
    pc, pb = core("getpeerinfo")[0], bn("getpeerinfo")[0]
    check(pc["transport_protocol_type"] == transport and
          pb["transport_protocol_type"] == transport,
          "both ends speak %s (Core: %s, bitnode: %s)" % (transport, pc["transport_protocol_type"],
                                                          pb["transport_protocol_type"]))
    if transport == "v2":
        check(len(pc["session_id"]) == 64 and pc["session_id"] == pb["session_id"],
              "the same session id (%s)" % pc["session_id"])
    print("core", core("getnetworkinfo")["subversion"], "- bitnode",
          bn("getnetworkinfo")["subversion"])
    key = Key(0x4242)
    addr = segwit_address("bcrt", 0, hash160(key.pubkey))

    hs = bn("generatetoaddress", 105, addr)
    wait(lambda: core("getbestblockhash") == hs[-1], "Core syncs bitnode's blocks")
    check(True, "Core accepted 105 blocks bitnoded mined (generatetoaddress)")
    hc = core("generatetoaddress", 5, addr)
    wait(lambda: bn("getbestblockhash") == hc[-1], "bitnode syncs Core's blocks")
    check(True, "bitnoded accepted 5 blocks Core mined")

    coins = iter(hs)

    def spend(fee):
        cb = bn("getblock", next(coins), 2)["tx"][0]
        value = int(round(cb["vout"][0]["value"] * 1e8))
        tx = Tx([TxIn(OutPoint(bytes.fromhex(cb["txid"])[::-1], 0), b"", 0xFFFFFFFD)],
                [TxOut(value - fee, P2WSH_TRUE)])
        sign_p2wpkh(tx, 0, key, value)
        return tx

    t1 = spend(1000)
    bn("sendrawtransaction", t1.hex())
    wait(lambda: t1.txid_hex in core("getrawmempool"), "t1 relayed bitnode -> Core")
    check(True, "Core's pool took a transaction bitnoded relayed")
    t2 = spend(2000)
    core("sendrawtransaction", t2.hex())
    wait(lambda: t2.txid_hex in bn("getrawmempool"), "t2 relayed Core -> bitnode")
    check(True, "bitnoded's pool took a transaction Core relayed")

    tmpl = bn("getblocktemplate", {"rules": ["segwit"]})
    check(sorted(t["txid"] for t in tmpl["transactions"]) == sorted([t1.txid_hex, t2.txid_hex]),
          "bitnoded's template holds both transactions")
    check(sum(t["fee"] for t in tmpl["transactions"]) == 3000, "template fees 3000 sat")
    block = block_from_template(tmpl, P2WSH_TRUE)
    check(bn("submitblock", block.hex()) == "", "bitnoded took its own template's block")
    tip = bn("getbestblockhash")
    wait(lambda: core("getbestblockhash") == tip, "Core takes bitnode's template block")
    check(True, "Core accepted bitnoded's getblocktemplate + submitblock block")
    wait(lambda: core("getrawmempool") == [] and bn("getrawmempool") == [], "both pools empty")
    check(True, "both pools empty after the block")

    def sent(node, msg):
        return sum(p["bytessent_per_msg"].get(msg, 0) for p in node("getpeerinfo"))

    def recv(node, msg):
        return sum(p["bytesrecv_per_msg"].get(msg, 0) for p in node("getpeerinfo"))

    def compact_round(miner, other):
        """A transaction sent to the miner reaches the other node's pool; the block the miner
        then mines reaches the other node as a cmpctblock, rebuilt without getblocktxn."""
        t = spend(3000)
        miner("sendrawtransaction", t.hex())
        wait(lambda: t.txid_hex in other("getrawmempool"),
             "relayed %s -> %s" % (miner.name, other.name))
        before = (recv(other, "cmpctblock"), sent(other, "getblocktxn"))
        h = miner("generatetoaddress", 1, addr)[0]
        wait(lambda: other("getbestblockhash") == h, "%s gets the block" % other.name)
        check(recv(other, "cmpctblock") > before[0],
              "%s sent the block as a cmpctblock" % miner.name)
        check(sent(other, "getblocktxn") == before[1],
              "%s rebuilt it without getblocktxn" % other.name)
        check(other("getrawmempool") == [], "the transaction left %s's pool" % other.name)

    compact_round(core, bn)
    compact_round(bn, core)

    # Core's template, mined here, submitted to bitnode.
    t5 = spend(4000)
    core("sendrawtransaction", t5.hex())
    wait(lambda: t5.txid_hex in bn("getrawmempool"), "t5 relayed Core -> bitnode")
    tmpl = core("getblocktemplate", {"rules": ["segwit"]})
    block = block_from_template(tmpl, P2WSH_TRUE)
    check(bn("submitblock", block.hex()) == "", "bitnoded accepted a block from Core's template")
    tip = bn("getbestblockhash")
    wait(lambda: core("getbestblockhash") == tip, "Core gets the block bitnode accepted")
    check(True, "bitnoded relayed it to Core")

    ci, bi = core("gettxoutsetinfo"), bn("gettxoutsetinfo")
    check(ci["height"] == bi["height"] == 114, "both at height 114")
    check(ci["hash_serialized_3"] == bi["hash_serialized_3"],
          "same UTXO set hash %s" % bi["hash_serialized_3"])
    check(ci["total_amount"] == bi["total_amount"], "same total amount")


if __name__ == "__main__":
    sys.exit(main())
