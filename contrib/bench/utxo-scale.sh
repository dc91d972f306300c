#!/usr/bin/env bash
# The UTXO-path benchmark: run on purpose, never by the tests.
#
#   contrib/bench/utxo-scale.sh BUILDDIR [--core BITCOIND] [--chains "small large"]
#                               [--dbcache "8 30 450 2000"] [--modes "reindex full"]
#                               [--maxmempool MB] [--work DIR]
#
# Chains (generated once with `bitnode-util genchain`, kept in the work folder):
#   small  --blocks 1500 --txs 2000 --seed 7 --tail 2100      (1.29M coins at the tip)
#   large  --blocks 1500 --txs 2000 --seed 7 --tail 2100 --fanout 70   (more fan-outs: a
#          set several times larger)
#   tiny   --blocks 150 --txs 100 --seed 7 --tail 2100   (seconds: a check of this script)
# Modes, for bitnoded and, with --core, Bitcoin Core's bitcoind (same options, alternated:
# the machine's speed drifts):
#   reindex  -reindex-chainstate -assumevalid=<tip> over a datadir that holds the chain's
#            blocks (imported once): the UTXO path alone, no scripts;
#   full     -loadblock into a fresh datadir with -assumevalid=0 -par=<cores>.
# -maxmempool (default: the nodes' default, 300 MB) is passed to both: in both nodes the
# unused mempool budget is the coins cache's too (Core's rule); --maxmempool 0 measures
# -dbcache alone.
#
# Each row: wall and CPU seconds, peak RSS (time -v), bytes the process read and wrote
# (/proc/<pid>/io, sampled every 0.2 s until it exits), the chainstate/ size after the clean
# stop, and from bitnoded's own log: coins flushes, the coins cache's hit rate and the
# longest gap between two connected blocks (for bitcoind, the gap is taken from its
# UpdateTip lines, logged with -logtimemicros). Every bitnoded run must reach the chain's tip;
# after each chain's first reindex the UTXO set hash (gettxoutsetinfo hash_serialized_3 and
# muhash) must equal the generator's.
#
# Before each run the datadir's block files are read once, so that every run starts with
# them in the page cache. Output: a Markdown table on stdout (progress on stderr).
set -euo pipefail

usage() {
    sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
CORE=
CHAINS="small large"
DBCACHES="8 30 450 2000"
MODES="reindex full"
MAXMEMPOOL=
WORK=${TMPDIR:-/tmp}/bitnode-utxo-bench
while [ $# -gt 0 ]; do
    case "$1" in
    --core) CORE=$2; shift 2 ;;
    --chains) CHAINS=$2; shift 2 ;;
    --dbcache) DBCACHES=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    --maxmempool) MAXMEMPOOL=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) usage ;;
    esac
done
UTIL=$BUILD/bitnode-util
NODED=$BUILD/bitnoded
CLI=$BUILD/bitnode-cli
for f in "$UTIL" "$NODED" "$CLI" /usr/bin/time; do
    [ -x "$f" ] || { echo "utxo-scale.sh: $f is missing" >&2; exit 1; }
done
[ -z "$CORE" ] || [ -x "$CORE" ] || { echo "utxo-scale.sh: $CORE is not executable" >&2; exit 1; }
BACKEND=$(sed -n 's/^BACKEND = //p' "$BUILD/Makefile")
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
CORES=$(nproc)

log() { echo "utxo-scale.sh: $*" >&2; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }'; }

chain_args() {
    case "$1" in
    small) echo "--blocks 1500 --txs 2000 --seed 7 --tail 2100" ;;
    large) echo "--blocks 1500 --txs 2000 --seed 7 --tail 2100 --fanout 70" ;;
    tiny) echo "--blocks 150 --txs 100 --seed 7 --tail 2100" ;; # a check of this script
    *) log "unknown chain $1"; exit 2 ;;
    esac
}

# Runs one node under time -v, sampling its I/O counters; sets WALL CPU RSS RD WR.
run_node() {
    local tf=$1
    shift
    /usr/bin/time -v -o "$tf" "$@" >/dev/null 2>&1 &
    local tp=$! np= r w
    for _ in $(seq 100); do
        np=$(pgrep -P "$tp" | head -1 || true)
        [ -n "$np" ] && break
        sleep 0.02
    done
    RD=0 WR=0
    while [ -n "$np" ] && [ -r "/proc/$np/io" ]; do
        r=$(awk '/^read_bytes/ { print $2 }' "/proc/$np/io" 2>/dev/null || true)
        w=$(awk '/^write_bytes/ { print $2 }' "/proc/$np/io" 2>/dev/null || true)
        [ -n "$r" ] && RD=$r
        [ -n "$w" ] && WR=$w
        sleep 0.2
    done
    wait "$tp" || { log "$* failed"; return 1; }
    WALL=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tf" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.1f", s }')
    CPU=$(awk '/User time|System time/ { s += $NF } END { printf "%.1f", s }' "$tf")
    RSS=$(awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$tf")
}

# The longest gap between two UpdateTip lines of a Core debug.log (microsecond stamps).
core_gap() {
    python3 - "$1" <<'PY'
import sys, datetime
prev = best = 0.0
for line in open(sys.argv[1], errors="replace"):
    if "UpdateTip: new best=" not in line:
        continue
    t = datetime.datetime.strptime(line[:27], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
    if prev:
        best = max(best, t - prev)
    prev = t
print("%.0f" % (best * 1000))
PY
}

core_args() { # datadir
    echo -regtest -datadir="$1" -listen=0 -connect=0 -dnsseed=0 -fixedseeds=0 -server=0 \
        -printtoconsole=0 -checkblockindex=0 -checkmempool=0 -logtimemicros=1 \
        ${MAXMEMPOOL:+-maxmempool=$MAXMEMPOOL}
}

echo "machine: $CORES cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);" \
    "bitnode backend $BACKEND; -maxmempool ${MAXMEMPOOL:-default (300)}"
echo
echo "| chain | mode | node | -dbcache | wall s | CPU s | peak RSS MiB | read MB | written MB | chainstate MB | flushes | cache hits | longest gap ms |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for chain in $CHAINS; do
    read -r -a GA <<<"$(chain_args "$chain")"
    name=chain-$chain
    CH=$WORK/$name.dat
    EX=$WORK/$name.json
    if [ ! -s "$CH" ] || [ ! -s "$EX" ]; then
        log "generating $name (once): genchain ${GA[*]}"
        "$UTIL" genchain "${GA[@]}" --out "$CH.tmp" --expect "$EX.tmp" >&2
        mv "$CH.tmp" "$CH"
        mv "$EX.tmp" "$EX"
    fi
    TIP=$(json "$EX" tip)
    H=$(json "$EX" height)
    HS=$(json "$EX" hash_serialized_3)
    MU=$(json "$EX" muhash)
    log "$name: tip $TIP at height $H, $(json "$EX" txouts) coins"
    # The blocks, imported once per node for the reindex runs.
    B=$WORK/base-$name-$BACKEND
    if [ ! -s "$B/done" ]; then
        rm -rf "$B"
        mkdir -p "$B"
        printf 'regtest=1\n[regtest]\nprinttoconsole=0\n' >"$B/bitnode.conf"
        log "importing $name into $B (once)"
        "$NODED" -datadir="$B" -loadblock="$CH" -server=0 -stopatheight="$H" -assumevalid="$TIP" >&2
        echo ok >"$B/done"
    fi
    CB=$WORK/base-$name-core
    if [ -n "$CORE" ] && [ ! -s "$CB/done" ]; then
        rm -rf "$CB"
        mkdir -p "$CB"
        log "importing $name into $CB (once)"
        # shellcheck disable=SC2046
        "$CORE" $(core_args "$CB") -loadblock="$CH" -stopatheight="$H" -assumevalid="$TIP" >&2
        echo ok >"$CB/done"
    fi
    checked=0
    for mode in $MODES; do
        for dbc in $DBCACHES; do
            for node in bitnode ${CORE:+core}; do
                if [ "$mode" = reindex ]; then
                    dd=$([ "$node" = core ] && echo "$CB" || echo "$B")
                    cat "$dd"/regtest/blocks/blk*.dat >/dev/null
                    extra=(-reindex-chainstate -assumevalid="$TIP")
                else
                    dd=$WORK/full-$name-$node
                    rm -rf "$dd"
                    mkdir -p "$dd"
                    cat "$CH" >/dev/null
                    extra=(-loadblock="$CH" -assumevalid=0 -par="$CORES")
                fi
                dlog=$dd/regtest/debug.log
                rm -f "$dlog"
                log "$name $mode $node -dbcache=$dbc"
                if [ "$node" = core ]; then
                    # shellcheck disable=SC2046
                    run_node "$dd/time.txt" "$CORE" $(core_args "$dd") -dbcache="$dbc" \
                        -stopatheight="$H" "${extra[@]}"
                    flushes=- hits=-
                    gap=$(core_gap "$dlog")
                else
                    [ -f "$dd/bitnode.conf" ] ||
                        printf 'regtest=1\n[regtest]\nprinttoconsole=0\n' >"$dd/bitnode.conf"
                    run_node "$dd/time.txt" "$NODED" -datadir="$dd" -server=0 -dbcache="$dbc" \
                        ${MAXMEMPOOL:+-maxmempool=$MAXMEMPOOL} -stopatheight="$H" "${extra[@]}"
                    grep -q -- "-stopatheight reached" "$dlog" ||
                        { log "bitnoded did not reach height $H; see $dlog"; exit 1; }
                    c=$(sed -n 's/.*coins: \(.*\)/\1/p' "$dlog" | tail -1)
                    flushes=$(echo "$c" | sed -n 's/^\([0-9]*\) flushes.*/\1/p')
                    hits=$(echo "$c" | sed -n 's/.*cache hits \([0-9.]*%\).*/\1/p')
                    gap=$(echo "$c" | sed -n 's/.*connected blocks \([0-9.]*\) ms.*/\1/p')
                fi
                cs=$(du -sm "$dd/regtest/chainstate" | cut -f1)
                printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
                    "$chain" "$mode" "$node" "$dbc" "$WALL" "$CPU" "$RSS" "$(mb "$RD")" \
                    "$(mb "$WR")" "$cs" "$flushes" "$hits" "$gap"
                if [ "$node" = bitnode ] && [ "$mode" = reindex ] && [ $checked = 0 ]; then
                    # The UTXO set the run left: the generator's hashes.
                    "$NODED" -datadir="$dd" -daemon=0 -server=1 -rpcport=18999 -port=18998 &
                    npid=$!
                    for _ in $(seq 100); do
                        "$CLI" -datadir="$dd" -rpcport=18999 getblockcount >/dev/null 2>&1 && break
                        sleep 0.2
                    done
                    info=$("$CLI" -datadir="$dd" -rpcport=18999 gettxoutsetinfo)
                    info_mu=$("$CLI" -datadir="$dd" -rpcport=18999 gettxoutsetinfo muhash)
                    "$CLI" -datadir="$dd" -rpcport=18999 stop >/dev/null
                    wait "$npid" || true
                    echo "$info" | grep -q "\"hash_serialized_3\": \"$HS\"" &&
                        echo "$info_mu" | grep -q "\"muhash\": \"$MU\"" ||
                        { log "the UTXO set hashes differ from the generator's"; exit 1; }
                    log "$name: hash_serialized_3 $HS and muhash $MU as generated"
                    checked=1
                fi
            done
        done
    done
done
