#!/usr/bin/env bash
# The pruning benchmark: run on purpose, never by the tests.
#
#   contrib/bench/prune.sh BUILDDIR [--rounds N] [--work DIR] [--args "ARGS"]
#
# 1. Generates, once (kept in the work folder), the chain feature_pruning.py imports: 1,000
#    small regtest blocks, then 1,100 whose coinbase carries a 640 kB unspendable output
#    (672 MiB of blocks; no scripts to check, so the rows measure storage, not signatures).
# 2. Imports it into a fresh datadir with -loadblock and -stopatheight=2100 (the node exits
#    once the tip is connected), without pruning and with -prune=550, alternated, N rounds
#    (default 2), under /usr/bin/time, and prints one Markdown row per run: wall, user and
#    sys seconds, the longest gap between two connected blocks and the flushes (the node's
#    shutdown log), the peak size of the blk/rev files in blocks/ (sampled every 0.1 s: what
#    du counts) and their size at the end, and the blk/rev pairs deleted.
set -euo pipefail

usage() {
    sed -n '3,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
ROUNDS=2
WORK=${TMPDIR:-/tmp}/bitnode-prune-bench
EXTRA=""
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --args) EXTRA=$2; shift 2 ;;
    *) usage ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
CHAIN=$WORK/prune-chain.dat
if [ ! -s "$CHAIN" ]; then
    echo "generating $CHAIN" >&2
    python3 - "$CHAIN" <<EOF
import sys
sys.path.insert(0, "$HERE/../../test/functional")
from feature_pruning import big_chain
print(big_chain(sys.argv[1], 1000, 1100, 640000), file=sys.stderr)
EOF
fi

# du's count of the blk/rev files of a directory (what the target covers; not the block
# index store): the larger of each file's size and its allocated blocks.
du_bytes() {
    find "$1" -maxdepth 1 -type f \( -name 'blk*.dat' -o -name 'rev*.dat' \) -printf '%s %b\n' 2>/dev/null |
        awk '{a = $1; b = $2 * 512; t += (a > b ? a : b)} END {print t + 0}'
}

run() { # $1: label, $2...: extra args
    local label=$1
    shift
    local dir=$WORK/datadir
    rm -rf "$dir"
    mkdir -p "$dir"
    local peak=0
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$BUILD/bitnoded" -regtest -datadir="$dir" \
        -loadblock="$CHAIN" -stopatheight=2100 -listen=0 -debug=blockstorage "$@" $EXTRA \
        >/dev/null 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ -d "$dir/regtest/blocks" ]; then
            local now
            now=$(du_bytes "$dir/regtest/blocks")
            [ "$now" -gt "$peak" ] && peak=$now
        fi
        sleep 0.1
    done
    wait "$pid" || true
    local log=$dir/regtest/debug.log
    grep -q -- "-stopatheight reached" "$log" || {
        echo "run $label did not reach height 2100 (see $log)" >&2
        exit 1
    }
    read -r wall user sys <"$WORK/time.txt"
    local gap flushes deleted end
    gap=$(grep -o "longest gap between two connected blocks [0-9.]* ms" "$log" | tail -1 |
        awk '{print $(NF-1)}')
    flushes=$(grep -o "flushes [0-9]*, [0-9.]* s in all" "$log" | tail -1 |
        awk '{gsub(",", "", $2); print $2 " (" $3 " s)"}')
    deleted=$(grep -c "UnlinkPrunedFiles deleted" "$log" || true)
    end=$(du_bytes "$dir/regtest/blocks")
    printf '| %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s |\n' "$label" "$wall" "$user" "$sys" \
        "${gap:-?}" "${flushes:-?}" "$(echo "$peak / 1048576" | bc -l)" \
        "$(echo "$end / 1048576" | bc -l)" "$deleted"
}

echo "| run | wall s | user s | sys s | longest gap ms | flushes | peak blk/rev MiB | end blk/rev MiB | pairs deleted |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in $(seq 1 "$ROUNDS"); do
    run "unpruned ($r)"
    run "-prune=550 ($r)" -prune=550
done
