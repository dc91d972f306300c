#!/usr/bin/env bash
# The RPC load benchmark: run on purpose, never by the tests.
#
#   contrib/bench/rpc-load.sh BUILDDIR [--chain FILE] [--clients N] [--rounds R]
#                             [--work DIR] [--port P] [--dbcache MB]
#
# An import (-loadblock of a generated chain, -txindex, -assumevalid at its tip) with and
# without RPC load, alternated R rounds (default 2; the machine's speed drifts). The load:
# N keep-alive clients (default 32; contrib/bench/rpc-load-client, one poll() loop) each
# sending its next request as soon as its answer came, round getblock <hash> 1, gettxout
# <txid> 0, getblockchaininfo, getrawtransaction <txid> 1, for blocks and transactions at or
# below the height the node last reported (the chain grows under the load). The hashes and a
# sample of txids (4 from each of 500 blocks) come from the first import without load.
#
# --chain: a chain file from `bitnode-util genchain` with its .json beside it (height, tip);
# default /tmp/ubench/chain-large.dat if it exists, else one generated into --work
# (300 blocks of 200 transactions). --port: the node's RPC port (default 17100; no P2P).
#
# Output (stdout, Markdown): one row per import (load or not: wall seconds from start to the
# tip, peak RSS, whether the node was still up), one row per method of the loaded imports
# (answered, JSON-RPC errors, HTTP 503 = work queue full, other statuses, latency
# p50/p90/p99/max in ms, requests per second), and the slowdown of the mean loaded import
# over the mean unloaded one. Answers that took a second or more are listed by the second
# they were sent in (the node's debug.log of each run is kept in --work to match them).
set -euo pipefail

usage() {
    sed -n '3,5p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
CHAIN=""
CLIENTS=32
ROUNDS=2
WORK=${TMPDIR:-/tmp}/bitnode-rpc-load
PORT=17100
DBCACHE=450
while [ $# -gt 0 ]; do
    case "$1" in
    --chain) CHAIN=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --dbcache) DBCACHE=$2; shift 2 ;;
    *) usage ;;
    esac
done
CLIENT=$BUILD/contrib/bench/rpc-load-client
[ -x "$CLIENT" ] || { echo "rpc-load.sh: build $CLIENT first (make contrib/bench/rpc-load-client)" >&2; exit 2; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [ -z "$CHAIN" ]; then
    if [ -s /tmp/ubench/chain-large.dat ]; then
        CHAIN=/tmp/ubench/chain-large.dat
    else
        CHAIN=$WORK/chain-b300-t200.dat
        if [ ! -s "$CHAIN" ]; then
            echo "rpc-load.sh: generating $CHAIN (once)" >&2
            "$BUILD/bitnode-util" genchain --blocks 300 --txs 200 --seed 1 \
                --out "$CHAIN.tmp" --expect "${CHAIN%.dat}.json" >&2
            mv "$CHAIN.tmp" "$CHAIN"
        fi
    fi
fi
EXPECT=${CHAIN%.dat}.json
HEIGHT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["height"])' "$EXPECT")
TIP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tip"])' "$EXPECT")
dd=$WORK/datadir
cli=("$BUILD/bitnode-cli" -datadir="$dd" -rpcclienttimeout=0)
pid=""
cpid=""
trap '[ -n "$cpid" ] && kill "$cpid" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null; true' EXIT

start_node() {
    rm -rf "$dd"
    mkdir -p "$dd"
    printf 'regtest=1\n[regtest]\nprinttoconsole=0\nrpcport=%d\nlisten=0\nrpcuser=bench\nrpcpassword=bench\n' \
        "$PORT" >"$dd/bitnode.conf"
    "$BUILD/bitnoded" -datadir="$dd" -loadblock="$CHAIN" -txindex -assumevalid="$TIP" \
        -dbcache="$DBCACHE" >/dev/null 2>"$WORK/stderr.txt" &
    pid=$!
    T0=$(date +%s.%N)
    until "${cli[@]}" getblockcount >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || { echo "rpc-load.sh: the node died at start" >&2; exit 1; }
        sleep 0.2
    done
}

# Waits for the tip at HEIGHT (one getblockcount a second); sets WALL and ALIVE.
wait_tip() {
    ALIVE=yes
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then ALIVE=no; break; fi
        h=$("${cli[@]}" getblockcount 2>/dev/null || echo -1)
        [ "$h" = "$HEIGHT" ] && break
        sleep 1
    done
    WALL=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[1]) - float(sys.argv[2])))" \
        "$(date +%s.%N)" "$T0")
    RSS=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status" 2>/dev/null || echo "?")
}

stop_node() {
    "${cli[@]}" stop >/dev/null 2>&1 || true
    wait "$pid" 2>/dev/null || true
    pid=""
}

# The hashes by height and 4 txids from each of 500 blocks, from a node at the tip.
collect_lists() {
    python3 - "$PORT" "$HEIGHT" "$WORK/hashes.txt" "$WORK/txids.txt" <<'PY'
import base64, http.client, json, random, sys
port, height, hashes_path, txids_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
auth = "Basic " + base64.b64encode(b"bench:bench").decode()
conn = http.client.HTTPConnection("127.0.0.1", port)
def rpc(method, *params):
    conn.request("POST", "/", json.dumps({"method": method, "params": list(params), "id": 1}),
                 {"Authorization": auth, "Content-Type": "application/json"})
    return json.loads(conn.getresponse().read())["result"]
hashes = [rpc("getblockhash", h) for h in range(height + 1)]
with open(hashes_path, "w") as f:
    f.write("\n".join(hashes) + "\n")
random.seed(1)
with open(txids_path, "w") as f:
    for h in sorted(random.sample(range(1, height + 1), min(500, height))):
        txs = rpc("getblock", hashes[h], 1)["tx"]
        for t in random.sample(txs, min(4, len(txs))):
            f.write("%d %s\n" % (h, t))
PY
}

declare -a WALL_LOAD WALL_NOLOAD
echo "| run | load | wall s | peak RSS MiB | node up |"
echo "|---|---|---|---|---|"
run_one() { # $1: round, $2: load|none
    start_node
    if [ "$2" = load ]; then
        "$CLIENT" "$PORT" bench:bench 100000 "$CLIENTS" "$WORK/hashes.txt" "$WORK/txids.txt" \
            >"$WORK/client-$1.txt" &
        cpid=$!
    fi
    wait_tip
    if [ "$2" = load ]; then
        kill -TERM "$cpid"
        wait "$cpid" || true
        cpid=""
        WALL_LOAD+=("$WALL")
    else
        WALL_NOLOAD+=("$WALL")
    fi
    echo "| $1 | $2 | $WALL | $RSS | $ALIVE |"
    if [ ! -s "$WORK/hashes.txt" ] && [ "$ALIVE" = yes ]; then
        collect_lists
    fi
    [ "$ALIVE" = yes ] || { cat "$WORK/stderr.txt" >&2; exit 1; }
    stop_node
    cp "$dd/regtest/debug.log" "$WORK/debug-$1-$2.log"
}

for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
        run_one "$r" none
        run_one "$r" load
    else
        run_one "$r" load
        run_one "$r" none
    fi
done

echo
echo "| run | method | answered | ok | JSON-RPC errors | HTTP 503 | other HTTP | p50 ms | p90 ms | p99 ms | max ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for r in $(seq 1 "$ROUNDS"); do
    awk -v r="$r" '$2 == "answered" {printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, $1, $3, $5, $7, $9, $11, $13, $15, $17, $19}' \
        "$WORK/client-$r.txt"
    awk -v r="$r" '$1 == "seconds" {printf "\nrun %s: %s requests/s over %s s with %s clients, %s reconnections, the client last saw height %s\n", r, $4, $2, '"$CLIENTS"', $6, $8}' \
        "$WORK/client-$r.txt"
    awk -v r="$r" '$1 == "slow" {n++; if (!(($4) in seen)) {seen[$4] = 1; t = t " " $4}}
        END {if (n) printf "run %s: %d answers took 1 s or more, sent at (UTC):%s (debug-%s-load.log)\n", r, n, t, r}' \
        "$WORK/client-$r.txt"
done
python3 - "${WALL_NOLOAD[*]}" "${WALL_LOAD[*]}" <<'PY'
import sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
ma, mb = sum(a) / len(a), sum(b) / len(b)
print("\nimport without load: mean %.1f s; with load: mean %.1f s; slowdown %+.0f%%" %
      (ma, mb, (mb / ma - 1) * 100))
PY
