#!/usr/bin/env bash
# The inbound P2P load benchmark: run on purpose, never by the tests.
#
#   contrib/bench/p2p-load.sh BUILDDIR --source DATADIR --height N [--peers 100] [--rounds 2]
#                             [--maxconnections 40] [--assumevalid TIP] [--work DIR]
#                             [--port 17200] [--phases "sync mem evict"]
#
# A source node holding a chain (a regtest datadir that imported it, e.g. the base-chain-*
# folders of contrib/bench/utxo-scale.sh; it is copied into --work, never changed) listens
# on loopback; a fresh node (-connect to it, -listen=1, -assumevalid at the tip unless given)
# syncs the chain from it:
#
# 1. sync alone and sync while PEERS (default 100) inbound peers of
#    contrib/bench/p2p-load-sim.py (version/verack, pings, getheaders, inv/getdata; 20 ms
#    apart) are connected to it, alternated ROUNDS rounds: wall seconds from start to the tip,
#    peak RSS, inbound peers at the tip, whether the node stayed up;
# 2. memory per peer: the synced node, idle; RSS before the peers come, with them connected
#    for 30 s, and after they left; (with - before) / peers;
# 3. eviction: the synced node restarted with -maxconnections=M (Core's inbound slots:
#    M minus 8 full-relay, 2 block-relay-only and 1 feeler slot, half of them for peers
#    that relay transactions, -inboundrelaypercent); the peers connect 50 ms
#    apart and stay 30 s: the inbound count, the peers evicted ("selected ... for eviction"
#    lines), the connections refused, and whether the longest-connected peers (the first
#    quarter: Core protects half of the candidates by uptime after the other protections)
#    all survived.
# --phases: which of the three to run (default all; mem and evict use the target datadir the
# last sync left in --work). Output: Markdown on stdout.
set -euo pipefail

usage() {
    sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
SRC="" HEIGHT="" PEERS=100 ROUNDS=2 MAXCONN=40 AV="" WORK=${TMPDIR:-/tmp}/bitnode-p2p-load
PORT=17200
PHASES="sync mem evict"
while [ $# -gt 0 ]; do
    case "$1" in
    --source) SRC=$2; shift 2 ;;
    --height) HEIGHT=$2; shift 2 ;;
    --peers) PEERS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --maxconnections) MAXCONN=$2; shift 2 ;;
    --assumevalid) AV=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --phases) PHASES=$2; shift 2 ;;
    *) usage ;;
    esac
done
[ -n "$SRC" ] && [ -n "$HEIGHT" ] || usage
HERE=$(cd "$(dirname "$0")" && pwd)
SIM=$HERE/p2p-load-sim.py
BN=$BUILD/bitnoded
SRC_PORT=$PORT TGT_PORT=$((PORT + 10)) TGT_RPC=$((PORT + 11))
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
src_dd=$WORK/source
if [ ! -d "$src_dd" ]; then
    echo "p2p-load.sh: copying $SRC (once)" >&2
    cp -r "$SRC" "$src_dd"
    rm -f "$src_dd"/regtest/bitnode.conf "$src_dd"/bitnode.conf "$src_dd"/regtest/.lock "$src_dd"/regtest/peers.dat
fi
tgt=$WORK/target
SRC_PID="" TGT_PID="" SIM_PID=""
trap 'for p in $SIM_PID $TGT_PID $SRC_PID; do kill "$p" 2>/dev/null || true; done' EXIT

"$BN" -datadir="$src_dd" -regtest -listen=1 -port=$SRC_PORT -bind=127.0.0.1:$SRC_PORT \
    -rpcport=$((PORT + 1)) -connect=0 -maxtipage=2000000000 -dbcache=100 -printtoconsole=0 \
    -server=0 &
SRC_PID=$!
until (exec 3<>/dev/tcp/127.0.0.1/$SRC_PORT) 2>/dev/null; do
    kill -0 "$SRC_PID" 2>/dev/null || { echo "the source did not start" >&2; exit 1; }
    sleep 0.2
done
if [ -z "$AV" ]; then # the source's block at HEIGHT, from its log
    AV=$(grep -o "UpdateTip: height=$HEIGHT best=[0-9a-f]*" "$src_dd/regtest/debug.log" |
         tail -1 | sed 's/.*best=//' || true)
    [ -n "$AV" ] || AV=0
fi

cli=("$BUILD/bitnode-cli" -datadir="$tgt" -rpcport=$TGT_RPC -rpcuser=bench -rpcpassword=bench)

# Starts the target; $1: extra options. Waits for its RPC.
start_target() {
    mkdir -p "$tgt"
    "$BN" -datadir="$tgt" -regtest -listen=1 -port=$TGT_PORT -bind=127.0.0.1:$TGT_PORT \
        -rpcport=$TGT_RPC -rpcuser=bench -rpcpassword=bench -connect=127.0.0.1:$SRC_PORT \
        -assumevalid="$AV" -maxtipage=2000000000 -printtoconsole=0 -debug=net "$@" \
        2>"$WORK/target-stderr.txt" &
    TGT_PID=$!
    T0=$(date +%s.%N)
    until "${cli[@]}" getblockcount >/dev/null 2>&1; do
        kill -0 "$TGT_PID" 2>/dev/null || { cat "$WORK/target-stderr.txt" >&2; exit 1; }
        sleep 0.2
    done
}

stop_target() {
    "${cli[@]}" stop >/dev/null 2>&1 || true
    wait "$TGT_PID" 2>/dev/null || true
    TGT_PID=""
}

rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$TGT_PID/status"; }
# Waits until the RSS moved less than 1 MiB over 10 s (at most 120 s): start-up's buffers
# freed, the caches settled.
rss_settle() {
    local a b
    a=$(rss)
    for _ in $(seq 1 12); do
        sleep 10
        b=$(rss)
        if python3 -c "import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) >= 1)" "$a" "$b"; then
            break
        fi
        a=$b
    done
}
inbound() { "${cli[@]}" getnetworkinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["connections_in"])'; }

start_sim() { # $1: stagger ms, $2: output
    python3 "$SIM" "$TGT_PORT" --peers "$PEERS" --stagger "$1" >"$2" &
    SIM_PID=$!
}

stop_sim() {
    kill -TERM "$SIM_PID" 2>/dev/null || true
    wait "$SIM_PID" 2>/dev/null || true
    SIM_PID=""
}

declare -a WALL_ALONE WALL_PEERS
sync_once() { # $1: round, $2: alone|peers
    rm -rf "$tgt"
    start_target
    [ "$2" = peers ] && start_sim 20 "$WORK/sim-sync-$1.json"
    local alive=yes h in="-"
    while :; do
        kill -0 "$TGT_PID" 2>/dev/null || { alive=no; break; }
        h=$("${cli[@]}" getblockcount 2>/dev/null || echo -1)
        [ "$h" = "$HEIGHT" ] && break
        sleep 1
    done
    local wall
    wall=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[1]) - float(sys.argv[2])))" \
        "$(date +%s.%N)" "$T0")
    local peak
    peak=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$TGT_PID/status" 2>/dev/null || echo "?")
    if [ "$2" = peers ]; then
        in=$(inbound)
        stop_sim
        WALL_PEERS+=("$wall")
    else
        WALL_ALONE+=("$wall")
    fi
    echo "| $1 | $2 | $wall | $peak | $in | $alive |"
    [ "$alive" = yes ] || { cat "$WORK/target-stderr.txt" >&2; exit 1; }
    stop_target
}

has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }

if has sync; then
echo "## Sync of $HEIGHT blocks from one source, alone and with $PEERS inbound peers"
echo
echo "| round | run | wall s | peak RSS MiB | inbound at the tip | node up |"
echo "|---|---|---:|---:|---:|---|"
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
        sync_once "$r" alone
        sync_once "$r" peers
    else
        sync_once "$r" peers
        sync_once "$r" alone
    fi
done
python3 - "${WALL_ALONE[*]}" "${WALL_PEERS[*]}" <<'PY'
import sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
ma, mb = sum(a) / len(a), sum(b) / len(b)
print("\nmean alone %.1f s, with the peers %.1f s: sync rate kept %.0f%%" % (ma, mb, ma / mb * 100))
PY
fi

if has mem; then
echo
echo "## Memory per peer (the synced node, idle)"
start_target  # the last sync's datadir: at the tip already
until [ "$("${cli[@]}" getblockcount)" = "$HEIGHT" ]; do sleep 1; done
rss_settle
before=$(rss)
start_sim 20 "$WORK/sim-mem.json"
sleep 30
with=$(rss)
in=$(inbound)
stop_sim
sleep 10
after=$(rss)
alive=yes
kill -0 "$TGT_PID" 2>/dev/null || alive=no
python3 - "$before" "$with" "$after" "$in" "$PEERS" "$alive" <<'PY'
import sys
b, w, a = (float(x) for x in sys.argv[1:4])
n, peers, alive = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
print()
print("| RSS before MiB | with %d inbound MiB | after they left MiB | per peer KiB | node up |" % n)
print("|---:|---:|---:|---:|---|")
print("| %.1f | %.1f | %.1f | %.0f | %s |" % (b, w, a, (w - b) * 1024 / max(n, 1), alive))
PY
stop_target
fi

if has evict; then
echo
echo "## Eviction with -maxconnections=$MAXCONN"
: >"$tgt/regtest/debug.log"
start_target -maxconnections="$MAXCONN"
until [ "$("${cli[@]}" getblockcount)" = "$HEIGHT" ]; do sleep 1; done
start_sim 50 "$WORK/sim-evict.json"
sleep $((PEERS / 20 + 30))
in=$(inbound)
stop_sim
alive=yes
kill -0 "$TGT_PID" 2>/dev/null || alive=no
evicted=$(grep -c "for eviction" "$tgt/regtest/debug.log" || true)
refused=$(grep -c "failed to find a.* eviction candidate" "$tgt/regtest/debug.log" || true)
stop_target
python3 - "$WORK/sim-evict.json" "$in" "$evicted" "$refused" "$MAXCONN" "$alive" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
inbound, evicted, refused, maxconn, alive = (int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                                             int(sys.argv[5]), sys.argv[6])
peers = d["peers"]
hs = [p for p in peers if p["handshake"] is not None]
survived = [p for p in peers if p["closed"] is None and p["connected"] is not None]
closed = [p for p in peers if p["closed"] is not None]
slots = max(0, maxconn - 11)
first = sorted(hs, key=lambda p: p["connected"])[:max(1, slots // 4)]
oldest_kept = all(p["closed"] is None for p in first)
print()
print("| inbound slots (Core) | inbound at the end | peers connected | survived | closed by the node | "
      "'for eviction' lines | 'failed to find an eviction candidate' | oldest %d kept | node up |" % len(first))
print("|---:|---:|---:|---:|---:|---:|---:|---|---|")
print("| %d | %d | %d | %d | %d | %d | %d | %s | %s |" % (slots, inbound, len(hs), len(survived),
      len(closed), evicted, refused, "yes" if oldest_kept else "no", alive))
print("\nsurvivors (peer index, in connection order): %s" % [p["index"] for p in survived])
print("transaction-relaying survivors: %d (Core's cap: %d%% of the inbound slots, %d)" %
      (sum(1 for p in survived if p["relay"]), 50, slots * 50 // 100))
PY
fi
kill "$SRC_PID" 2>/dev/null || true
wait "$SRC_PID" 2>/dev/null || true
SRC_PID=""
