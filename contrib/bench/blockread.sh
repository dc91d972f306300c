#!/usr/bin/env bash
# Block-file reading, two bitnoded builds against each other: run on purpose, never by the
# tests.
#
#   contrib/bench/blockread.sh BEFORE AFTER [--pairs N] [--blocks B] [--txs T] [--work DIR]
#
# BEFORE and AFTER are two bitnoded executables (e.g. one reading block files through mmap,
# one through pread). A regtest chain is made once with the bitnode-util next to AFTER
# (genchain, B blocks of about T transactions, then 2100 holding only their coinbase so
# that -assumevalid=<tip> skips the scripts; $BITNODE_UTIL overrides where it is), then,
# N times with the order alternated within each pair (so that a machine growing busier or
# quieter favours neither):
#   import:  a fresh datadir, -loadblock=<chain> -stopatheight=<tip height>
#            -assumevalid=<tip> (scripts skipped: reading and connecting dominate),
#            -blocksxor=0;
#   reindex: -reindex of that datadir, its blk files plain (-blocksxor=0), same options.
# Each row is one run's wall time (the node exits at the tip); the summary is the mean of
# each build and of the per-pair differences. Output: a Markdown table on stdout.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '4,4p' "$0" | sed 's/^# //' >&2; exit 2; }
BEFORE=$(readlink -f "$1")
AFTER=$(readlink -f "$2")
shift 2
PAIRS=3
BLOCKS=300
TXS=300
WORK=${TMPDIR:-/tmp}/bitnode-blockread-bench
while [ $# -gt 0 ]; do
    case "$1" in
    --pairs) PAIRS=$2; shift 2 ;;
    --blocks) BLOCKS=$2; shift 2 ;;
    --txs) TXS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
UTIL=${BITNODE_UTIL:-$(dirname "$AFTER")/bitnode-util}
mkdir -p "$WORK"
CHAIN=$WORK/chain-$BLOCKS-$TXS.dat
if [ ! -s "$CHAIN" ]; then
    "$UTIL" genchain --blocks "$BLOCKS" --txs "$TXS" --seed 1 --tail 2100 --out "$CHAIN" \
        >"$CHAIN.txt"
fi
TIP=$(sed -n 's/^tip: //p' "$CHAIN.txt")
HEIGHT=$((BLOCKS + 2100))
PORT=${BLOCKREAD_PORT:-16990}

# run BIN NAME MODE: prints the wall seconds of one run.
run() {
    local bin=$1 dir=$WORK/$2 mode=$3 extra=()
    if [ "$mode" = import ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        extra=(-loadblock="$CHAIN")
    else
        extra=(-reindex)
        rm -f "$dir/regtest/debug.log" # what is checked below is this run's
    fi
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" -regtest -datadir="$dir" -port=$PORT -rpcport=$((PORT + 1)) -listen=0 -server=0 \
        -blocksxor=0 -stopatheight="$HEIGHT" -assumevalid="$TIP" -printtoconsole=0 \
        "${extra[@]}" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    if ! grep -q " -stopatheight reached" "$dir/regtest/debug.log" ||
        grep -q " [1-9][0-9]* invalid" "$dir/regtest/debug.log"; then
        echo "run $2 $mode did not reach height $HEIGHT" >&2
        exit 1
    fi
    echo "$t1 - $t0" | bc
}

echo "| pair | mode | before s | after s | after - before |"
echo "|---:|---|---:|---:|---:|"
for mode in import reindex; do
    sb=0 sa=0
    for p in $(seq 1 "$PAIRS"); do
        if [ $((p % 2)) -eq 1 ]; then
            b=$(run "$BEFORE" before "$mode"); a=$(run "$AFTER" after "$mode")
        else
            a=$(run "$AFTER" after "$mode"); b=$(run "$BEFORE" before "$mode")
        fi
        printf '| %d | %s | %.2f | %.2f | %+.2f |\n' "$p" "$mode" "$b" "$a" "$(echo "$a - $b" | bc)"
        sb=$(echo "$sb + $b" | bc); sa=$(echo "$sa + $a" | bc)
    done
    printf '| mean | %s | %.2f | %.2f | %+.1f%% |\n' "$mode" "$(echo "$sb / $PAIRS" | bc -l)" \
        "$(echo "$sa / $PAIRS" | bc -l)" "$(echo "($sa - $sb) * 100 / $sb" | bc -l)"
done
