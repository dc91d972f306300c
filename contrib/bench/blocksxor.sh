#!/usr/bin/env bash
# The XOR key's benchmark: run on purpose, never by the tests.
#
#   contrib/bench/blocksxor.sh BUILDDIR CHAIN.dat CHAIN.json [--rounds N] [--work DIR] [--import-only]
#
# Imports a generated chain (bitnode-util genchain's file and its --expect JSON, e.g.
# utxo-scale.sh's large chain) with -loadblock into a fresh datadir, -assumevalid=<tip> (no
# scripts: the import's other costs are as small as they get, so the XOR's share is as large
# as it gets) and -stopatheight=<tip height>, once with -blocksxor=1 (a random key: every blk
# and rev byte written XORed) and once with -blocksxor=0 (a key of zeros: no XOR), then
# -reindex of each datadir (every blk file read back through the key), N rounds (default 2),
# the order of the two settings swapped every round. One Markdown row per run: wall, user and
# sys seconds (/usr/bin/time), and the key the node logged. --import-only leaves out the
# -reindex runs (they check every script, so they measure script checking more than the key).
set -euo pipefail

[ $# -ge 3 ] || { sed -n '3,4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
CH=$2
EX=$3
shift 3
ROUNDS=2
MODES="import reindex"
WORK=${TMPDIR:-/tmp}/bitnode-blocksxor-bench
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --import-only) MODES=import; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
TIP=$(json "$EX" tip)
H=$(json "$EX" height)
mkdir -p "$WORK"

run() { # datadir xor mode
    local dd=$1 xor=$2 mode=$3 extra
    if [ "$mode" = import ]; then
        rm -rf "$dd"
        mkdir -p "$dd"
        printf 'regtest=1\n[regtest]\nprinttoconsole=0\n' >"$dd/bitnode.conf"
        cat "$CH" >/dev/null
        extra=(-loadblock="$CH")
    else
        cat "$dd"/regtest/blocks/blk*.dat >/dev/null
        extra=(-reindex)
    fi
    /usr/bin/time -f "%e %U %S" -o "$dd/time.txt" "$BUILD/bitnoded" -datadir="$dd" -server=0 \
        -blocksxor="$xor" -assumevalid="$TIP" -stopatheight="$H" "${extra[@]}" >/dev/null 2>&1
    local key
    key=$(grep -o "Using obfuscation key for blocksdir \*.dat files ([^)]*): '[0-9a-f]*'" \
        "$dd/regtest/debug.log" | tail -1 | sed "s/.*: '\(.*\)'/\1/")
    read -r wall user sys <"$dd/time.txt"
    echo "| $r | $mode | $xor | $wall | $user | $sys | $key |"
}

echo "| round | run | -blocksxor | wall s | user s | sys s | key |"
echo "|---:|---|---:|---:|---:|---:|---|"
for r in $(seq 1 "$ROUNDS"); do
    order="1 0"
    [ $((r % 2)) -eq 0 ] && order="0 1"
    for mode in $MODES; do
        for xor in $order; do
            run "$WORK/xor$xor" "$xor" "$mode"
        done
    done
done
