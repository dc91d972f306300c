#!/usr/bin/env bash
# The index benchmark: run on purpose, never by the tests.
#
#   contrib/bench/indexes.sh BUILDDIR [--rounds N] [--work DIR] [--par P] [--modes "none tip"]
#                            [--blocks B] [--sets "none bf cs ts all"]
#
# Imports the chain contrib/bench/import.sh generates (its defaults: 500 spending blocks of
# about 200 transactions, then 2,100 empty ones; --blocks B spending blocks instead; generated
# here too if missing, into the same work folder) into a fresh datadir with -loadblock, once per index setting, alternated, N
# rounds (default 2): no index, -blockfilterindex, -coinstatsindex, -txospenderindex, and
# the three together; each with every script checked ("none") and with -assumevalid=<tip>
# ("tip"). The node runs until the tip is connected and every index it has reports synced
# at the tip (getindexinfo, polled every 0.05 s), then is stopped. One Markdown row per run:
# the seconds until the tip was connected (what an index may cost block connection), the
# validation thread's own span from the first block begun to the last one finished (the
# node's "check pool: ... in X s of connecting": no start-up, no polling), until the indexes
# were synced, user and sys CPU of the whole run, the longest gap between two
# connected blocks (the node's shutdown log: "gap between blocks ... max") and the size of
# indexes/.
set -euo pipefail

usage() {
    sed -n '3,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
ROUNDS=2
WORK=${TMPDIR:-/tmp}/bitnode-import-bench
PAR=2
MODES="none tip"
BLOCKS=500
SETS="none bf cs ts all"
while [ $# -gt 0 ]; do
    case "$1" in
    --blocks) BLOCKS=$2; shift 2 ;;
    --sets) SETS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --par) PAR=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    *) usage ;;
    esac
done
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
NAME=chain-b$BLOCKS-t200-s1-tail2100
CHAIN=$WORK/$NAME.dat
EXPECT=$WORK/$NAME.json
if [ ! -s "$CHAIN" ] || [ ! -s "$EXPECT" ]; then
    echo "indexes.sh: generating $NAME (once)" >&2
    "$BUILD/bitnode-util" genchain --blocks "$BLOCKS" --txs 200 --seed 1 --tail 2100 \
        --out "$CHAIN.tmp" --expect "$EXPECT.tmp" >&2
    mv "$CHAIN.tmp" "$CHAIN"
    mv "$EXPECT.tmp" "$EXPECT"
fi
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
HEIGHT=$(json "$EXPECT" height)
TIP=$(json "$EXPECT" tip)
PORT=$((20000 + RANDOM % 20000))

now() { date +%s.%N; }

run() { # $1: label, $2: mode, $3...: index options
    local label=$1 mode=$2
    shift 2
    local dd=$WORK/datadir-indexes
    rm -rf "$dd"
    mkdir -p "$dd"
    printf 'regtest=1\n[regtest]\nprinttoconsole=0\nrpcport=%d\nlisten=0\n' "$PORT" >"$dd/bitnode.conf"
    local args=(-datadir="$dd" -loadblock="$CHAIN" -par="$PAR" "$@")
    [ "$mode" = tip ] && args+=(-assumevalid="$TIP")
    local cli=("$BUILD/bitnode-cli" -datadir="$dd")
    local start t_tip="" t_sync=""
    start=$(now)
    /usr/bin/time -f "%U %S" -o "$dd/time.txt" "$BUILD/bitnoded" "${args[@]}" >/dev/null 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ -z "$t_tip" ] && [ "$("${cli[@]}" getblockcount 2>/dev/null || echo -1)" = "$HEIGHT" ]; then
            t_tip=$(now)
        fi
        if [ -n "$t_tip" ] && "${cli[@]}" getindexinfo 2>/dev/null | python3 -c '
import json, sys
info = json.load(sys.stdin)
sys.exit(0 if all(v["synced"] and v["best_block_height"] == int(sys.argv[1])
                  for v in info.values()) else 1)' "$HEIGHT"; then
            t_sync=$(now)
            "${cli[@]}" stop >/dev/null
            break
        fi
        sleep 0.05
    done
    wait "$pid" || true
    local gap idx span
    span=$(grep -o "inputs in [0-9.]* s of connecting" "$dd/regtest/debug.log" | tail -1 |
        sed 's/inputs in \([0-9.]*\) s.*/\1/' || true)
    gap=$(grep -o "gap between blocks p50 [0-9.]* ms, p99 [0-9.]* ms, max [0-9.]* ms" \
        "$dd/regtest/debug.log" | tail -1 | sed 's/.*max \([0-9.]*\) ms/\1/' || true)
    idx=$( (du -sk "$dd/regtest/indexes" 2>/dev/null || echo 0) | cut -f1)
    read -r user sys <"$dd/time.txt"
    printf '| %s | %s | %.2f | %s | %.2f | %s | %s | %s | %.1f |\n' "$label" "$mode" \
        "$(echo "$t_tip - $start" | bc -l)" "${span:-?}" "$(echo "${t_sync:-$start} - $start" | bc -l)" \
        "$user" "$sys" "${gap:-?}" "$(echo "${idx:-0} / 1024" | bc -l)"
}

echo "chain: $HEIGHT blocks ($CHAIN), -par=$PAR, $(sed -n 's/^BACKEND = //p' "$BUILD/Makefile")"
echo
echo "| indexes | assumevalid | tip connected s | connecting s | indexes synced s | user s | sys s | longest gap ms | indexes/ MiB |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for r in $(seq "$ROUNDS"); do
    for mode in $MODES; do
        for set in $SETS; do
            case $set in
            none) run "none ($r)" "$mode" ;;
            bf) run "blockfilter ($r)" "$mode" -blockfilterindex ;;
            cs) run "coinstats ($r)" "$mode" -coinstatsindex ;;
            ts) run "txospender ($r)" "$mode" -txospenderindex ;;
            all) run "all three ($r)" "$mode" -blockfilterindex -coinstatsindex -txospenderindex ;;
            *) usage ;;
            esac
        done
    done
done
