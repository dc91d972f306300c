#!/usr/bin/env bash
# The P2P initial-sync benchmark: run on purpose, never by the tests.
#
#   contrib/bench/p2p-sync.sh BUILDDIR --source-bitnode DATADIR --height N
#                             [--core BITCOIND --source-core DATADIR] [--runs 2]
#                             [--assumevalid 0|TIP] [--dbcache 450] [--work DIR]
#                             [--transports "v1 v2"]
#
# A source node holding a chain (a regtest datadir that imported it, e.g. one of
# contrib/bench/utxo-scale.sh's base-chain-* folders) listens on loopback; a fresh node
# started with -connect to it downloads headers and blocks over P2P and validates them
# until -stopatheight=N ends it. Pairs, alternated in each round (the machine's speed
# drifts): bitnode from bitnode; with --core, Core from Core, bitnode from Core and Core
# from bitnode (the interoperability rows). -assumevalid=0 checks every script; TIP skips
# them below that block (the download, storage and UTXO path alone).
#
# --transports: the bitnode-from-bitnode pair once per transport, alternated: the syncing
# node started with -v2transport=0 (v1) or =1 (BIP324 v2; the source offers both, as a node
# does by default). Without it, neither option is given (the nodes' default: v2).
#
# Each row: the transport, wall, user and sys seconds and peak RSS of the syncing node
# (time -v), the source's CPU seconds over the same sync (/proc), and whether it stopped at
# the expected height. Output: a Markdown table on stdout.
set -euo pipefail

usage() {
    sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
CORE="" SRC_BN="" SRC_CORE="" HEIGHT="" RUNS=2 AV=0 DBCACHE=450 WORK=/tmp/p2p-bench
TRANSPORTS=default
while [ $# -gt 0 ]; do
    case "$1" in
    --core) CORE=$2; shift 2 ;;
    --source-bitnode) SRC_BN=$2; shift 2 ;;
    --source-core) SRC_CORE=$2; shift 2 ;;
    --height) HEIGHT=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --assumevalid) AV=$2; shift 2 ;;
    --dbcache) DBCACHE=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --transports) TRANSPORTS=$2; shift 2 ;;
    *) usage ;;
    esac
done
[ -n "$SRC_BN" ] && [ -n "$HEIGHT" ] || usage
BN=$BUILD/bitnoded
CORE_OPTS="-checkblockindex=0 -checkmempool=0"
SRC_PORT=19611
mkdir -p "$WORK"

# Starts the source of kind (bitnode|core) in the background; waits until it listens.
start_source() {
    local kind=$1
    if [ "$kind" = bitnode ]; then
        "$BN" -datadir="$SRC_BN" -regtest -listen=1 -port=$SRC_PORT -rpcport=19612 -connect=0 \
            -maxtipage=2000000000 -dbcache=100 -printtoconsole=0 -server=0 &
    else
        "$CORE" -datadir="$SRC_CORE" -regtest -listen=1 -port=$SRC_PORT -bind=127.0.0.1:$SRC_PORT \
            -rpcport=19612 -connect=0 -maxtipage=2000000000 -dbcache=100 -printtoconsole=0 \
            -server=0 $CORE_OPTS &
    fi
    SRC_PID=$!
    for _ in $(seq 1 600); do
        if (exec 3<>/dev/tcp/127.0.0.1/$SRC_PORT) 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    echo "source $kind did not listen" >&2
    exit 1
}

stop_source() {
    kill -TERM "$SRC_PID" 2>/dev/null || true
    wait "$SRC_PID" 2>/dev/null || true
}

# CPU seconds (user + sys) the running source has used so far.
source_cpu() {
    awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$SRC_PID/stat"
}

# One sync of kind (bitnode|core) from the running source with transport (v1|v2|default);
# prints a table row.
sync_once() {
    local kind=$1 from=$2 transport=${3:-default} dir="$WORK/target"
    rm -rf "$dir"
    mkdir -p "$dir"
    local bin=$BN extra=""
    if [ "$kind" = core ]; then
        bin=$CORE
        extra=$CORE_OPTS
    fi
    case "$transport" in
    v1) extra="$extra -v2transport=0" ;;
    v2) extra="$extra -v2transport=1" ;;
    esac
    local cpu0
    cpu0=$(source_cpu)
    local t="$WORK/time.txt"
    /usr/bin/time -v -o "$t" "$bin" -datadir="$dir" -regtest -listen=0 -server=0 \
        -connect=127.0.0.1:$SRC_PORT -stopatheight="$HEIGHT" -assumevalid="$AV" \
        -dbcache="$DBCACHE" -maxtipage=2000000000 -printtoconsole=0 $extra
    local wall user sys rss src_cpu
    src_cpu=$(awk -v a="$cpu0" -v b="$(source_cpu)" 'BEGIN {printf "%.2f", b - a}')
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0;
           for (i = 1; i <= n; i++) s = s * 60 + a[i]; printf "%.1f", s}' "$t")
    user=$(awk -F': ' '/User time/ {print $2}' "$t")
    sys=$(awk -F': ' '/System time/ {print $2}' "$t")
    rss=$(awk -F': ' '/Maximum resident/ {printf "%d", $2 / 1024}' "$t")
    # Where it stopped: bitnode logs "-stopatheight reached" only there; Core logs an
    # UpdateTip line per block.
    local got
    if [ "$kind" = bitnode ]; then
        got=$(grep -q -- "-stopatheight reached" "$dir/regtest/debug.log" && echo "$HEIGHT" ||
              echo "not reached")
    else
        got=$(grep -o "UpdateTip: new best=[0-9a-f]* height=[0-9]*" "$dir/regtest/debug.log" |
              tail -1 | sed 's/.*height=//' || true)
    fi
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$kind" "$from" "$transport" \
        "$wall" "$user" "$sys" "$rss" "$src_cpu" "${got:-?}"
}

echo "| syncing node | from | transport | wall s | user s | sys s | peak RSS MiB | source CPU s | stopped at |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
for round in $(seq 1 "$RUNS"); do
    echo "round $round" >&2
    start_source bitnode
    order=$TRANSPORTS
    if [ $((round % 2)) -eq 0 ]; then # alternate the order from round to round
        order=$(echo "$TRANSPORTS" | tr ' ' '\n' | tac | tr '\n' ' ')
    fi
    for transport in $order; do
        sync_once bitnode bitnode "$transport"
    done
    if [ -n "$CORE" ]; then
        sync_once core bitnode
    fi
    stop_source
    if [ -n "$CORE" ] && [ -n "$SRC_CORE" ]; then
        start_source core
        sync_once core core
        sync_once bitnode core
        stop_source
    fi
done
