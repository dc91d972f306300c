#!/usr/bin/env bash
# The import benchmark: run on purpose, never by the tests.
#
#   contrib/bench/import.sh BUILDDIR [--blocks N] [--txs M] [--seed S] [--tail T]
#                           [--work DIR] [--dbcache MB] [--par LIST] [--args "ARGS"]
#
# 1. Generates, once (kept in the work folder and reused by later runs, whatever the
#    build), a regtest chain with `bitnode-util genchain`: N blocks (default 500) of about
#    M transactions (default 200) spending every output type, then T blocks (default 2100)
#    holding only their coinbase, so that every spending block is buried under more than
#    two weeks of work and -assumevalid=<tip> skips their scripts. It needs at least
#    200,000 signature checks.
# 2. Runs contrib/bench/verify-floor on the chain's counts: the floor is the time
#    libsecp256k1's verify calls alone need for the chain's ECDSA and Schnorr checks, on one
#    thread and divided by the cores; the check floor adds every other library call those
#    checks make (key and DER parsing, S normalisation, the taproot tweak checks).
# 3. For the build's backend (leveldb or bdb, from BUILDDIR/Makefile) and each -par in LIST
#    (default "1 2"), without and with -assumevalid=<tip>: imports the chain into a fresh
#    datadir with -loadblock and -stopatheight=<tip height> (the node exits when the tip is
#    connected) under /usr/bin/time -v, checks the log says every block was new and valid
#    and the height was reached, and that the node's own count of the verifies it made (its
#    log at shutdown) equals the chain's, and
#    prints one row: wall time, user and sys CPU, peak RSS (time -v: it counts file pages
#    mapped in too: libraries, the block file, LevelDB's table files), peak anonymous
#    memory (sampled every 0.1 s: what the node allocated), signature checks per second
#    (of wall time; the -assumevalid rows skip them, so that column is the import rate
#    without scripts), the speed-up over -par=1 in the same mode, and the wall time over the
#    floor and over the check floor.
#    After the table: what each node logged at shutdown about its threads (the share of the
#    connecting time each spent reading the next block, preparing, checking, waiting or
#    idle) and its memory (the coins cache's peak against its limit, the signature cache).
#
# --args: more options for every bitnoded run (e.g. "-blockfilterindex": with -stopatheight
# the node exits once the tip is connected, so a row measures what an index costs block
# connection, not the index's own catching up).
#
# Output: a Markdown table on stdout (progress on stderr), ready for doc/benchmarks.md.
set -euo pipefail

usage() {
    sed -n '3,5p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
BLOCKS=500
TXS=200
SEED=1
TAIL=2100
WORK=${TMPDIR:-/tmp}/bitnode-import-bench
DBCACHE=
PARS="1 2"
EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
    --blocks) BLOCKS=$2; shift 2 ;;
    --txs) TXS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --tail) TAIL=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --dbcache) DBCACHE=$2; shift 2 ;;
    --par) PARS=$2; shift 2 ;;
    --args) read -r -a EXTRA <<<"$2"; shift 2 ;;
    *) usage ;;
    esac
done

UTIL=$BUILD/bitnode-util
NODED=$BUILD/bitnoded
FLOOR=$BUILD/contrib/bench/verify-floor
for f in "$UTIL" "$NODED" "$FLOOR" /usr/bin/time; do
    if [ ! -x "$f" ]; then
        echo "import.sh: $f is missing" \
            "(make -j1 bitnoded bitnode-util contrib/bench/verify-floor)" >&2
        exit 1
    fi
done
BACKEND=$(sed -n 's/^BACKEND = //p' "$BUILD/Makefile")
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

log() { echo "import.sh: $*" >&2; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

# ---- 1. the chain, generated once ----
NAME=chain-b$BLOCKS-t$TXS-s$SEED-tail$TAIL
CHAIN=$WORK/$NAME.dat
EXPECT=$WORK/$NAME.json
if [ ! -s "$EXPECT" ] || [ ! -s "$CHAIN" ]; then
    log "generating $NAME (once)"
    start=$(date +%s.%N)
    "$UTIL" genchain --blocks "$BLOCKS" --txs "$TXS" --seed "$SEED" --tail "$TAIL" \
        --out "$CHAIN.tmp" --expect "$EXPECT.tmp" >&2
    mv "$CHAIN.tmp" "$CHAIN"
    mv "$EXPECT.tmp" "$EXPECT"
    log "generated in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
fi
SIGCHECKS=$(json "$EXPECT" sigchecks)
ECDSA=$(json "$EXPECT" ecdsa)
SCHNORR=$(json "$EXPECT" schnorr)
HEIGHT=$(json "$EXPECT" height)
TIP=$(json "$EXPECT" tip)
NTX=$(json "$EXPECT" transactions)
if [ "$SIGCHECKS" -lt 200000 ]; then
    log "warning: the chain needs only $SIGCHECKS signature checks (the benchmark wants 200,000)"
fi

# ---- 2. the floor ----
CORES=$(nproc)
FLOOR_OUT=$("$FLOOR" --expect "$EXPECT" --cores "$CORES")
ST=$(echo "$FLOOR_OUT" | sed -n 's/^single-thread: \([0-9.]*\) s$/\1/p')
FL=$(echo "$FLOOR_OUT" | sed -n 's/^floor: \([0-9.]*\) s.*/\1/p')
CST=$(echo "$FLOOR_OUT" | sed -n 's/^check single-thread: \([0-9.]*\) s$/\1/p')
CFL=$(echo "$FLOOR_OUT" | sed -n 's/^check floor: \([0-9.]*\) s.*/\1/p')
US_CE=$(echo "$FLOOR_OUT" | sed -n 's/^ecdsa check .*: \([0-9.]*\) us each$/\1/p')
US_CS=$(echo "$FLOOR_OUT" | sed -n 's/^schnorr check .*: \([0-9.]*\) us each$/\1/p')
US_T=$(echo "$FLOOR_OUT" | sed -n 's/^tweak check: .*(\([0-9.]*\) us each)$/\1/p')
NTWEAK=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spends"].get("p2tr-script", 0))' "$EXPECT")
US_E=$(echo "$FLOOR_OUT" | sed -n 's/^ecdsa: .*(\([0-9.]*\) us each)$/\1/p')
US_S=$(echo "$FLOOR_OUT" | sed -n 's/^schnorr: .*(\([0-9.]*\) us each)$/\1/p')

# ---- 3. the imports ----
echo "chain: $HEIGHT blocks ($BLOCKS with spends), $NTX transactions, $SIGCHECKS signature" \
    "checks ($ECDSA ECDSA, $SCHNORR Schnorr), tip $TIP"
echo "floor: $ST s on one thread ($US_E us per ECDSA, $US_S us per Schnorr verify), $FL s on" \
    "$CORES cores"
echo "check floor (every libsecp256k1 call of those checks: key and signature parsing, and" \
    "$NTWEAK taproot tweak checks): $CST s on one thread ($US_CE us per ECDSA check, $US_CS us" \
    "per Schnorr check, $US_T us per tweak check), $CFL s on $CORES cores"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start;" \
    "backend $BACKEND${DBCACHE:+, -dbcache=$DBCACHE}"
echo
echo "| backend | -par | assumevalid | wall s | user s | sys s | peak RSS MiB | peak anon MiB | sigchecks/s | speed-up | wall / floor | wall / check floor |"
echo "|---------|-----:|-------------|-------:|-------:|------:|-------------:|--------------:|------------:|---------:|-------------:|-------------------:|"
NOTES=()
declare -A WALL1
for av in none tip; do
    for par in $PARS; do
        dd=$WORK/datadir-$BACKEND-par$par-$av
        rm -rf "$dd"
        mkdir -p "$dd"
        printf 'regtest=1\n[regtest]\nprinttoconsole=0\n' > "$dd/bitnode.conf"
        args=(-datadir="$dd" -loadblock="$CHAIN" -server=0 -stopatheight="$HEIGHT" -par="$par")
        [ "$av" = tip ] && args+=(-assumevalid="$TIP")
        [ -n "$DBCACHE" ] && args+=(-dbcache="$DBCACHE")
        args+=("${EXTRA[@]}")
        load=$(cut -d' ' -f1 /proc/loadavg)
        log "backend $BACKEND -par=$par assumevalid=$av: importing (load $load)"
        /usr/bin/time -v -o "$dd/time.txt" "$NODED" "${args[@]}" >"$dd/stdout.txt" 2>&1 &
        tpid=$!
        # Peak anonymous memory (the heap: what the process itself allocated), sampled every
        # 0.1 s without forking; peak RSS (from time -v) also counts file pages mapped in
        # (the libraries, the block file being read, LevelDB's table files).
        npid=
        for _ in $(seq 50); do
            npid=$(pgrep -P "$tpid" -x bitnoded || true)
            [ -n "$npid" ] && break
            sleep 0.02
        done
        anon=0
        while [ -n "$npid" ] && [ -r "/proc/$npid/status" ]; do
            while read -r k v _; do
                if [ "$k" = "RssAnon:" ] && [ "$v" -gt "$anon" ]; then
                    anon=$v
                fi
            done <"/proc/$npid/status" 2>/dev/null || true
            sleep 0.1
        done
        if ! wait "$tpid"; then
            log "bitnoded failed; see $dd"
            exit 1
        fi
        dlog=$dd/regtest/debug.log
        done_line="import: $HEIGHT records, $HEIGHT new blocks, 0 known, 0 invalid"
        if ! grep -q -- "-stopatheight reached" "$dlog" || ! grep -q "$done_line" "$dlog"; then
            log "the import did not connect all $HEIGHT blocks; see $dlog"
            exit 1
        fi
        if [ "$av" = tip ] && ! grep -q "Assuming ancestors of block $TIP" "$dlog"; then
            log "-assumevalid was not taken; see $dlog"
            exit 1
        fi
        # The node counts the verifies it really made: they must be the generator's count.
        if [ "$av" = none ] &&
            ! grep -q "signature verifies: $ECDSA ECDSA, $SCHNORR Schnorr, $NTWEAK taproot" "$dlog"; then
            log "the node's signature verifies differ from the chain's count; see $dlog"
            exit 1
        fi
        NOTES+=("$BACKEND -par=$par assumevalid=$av: $(sed -n 's/.*check pool: //p' "$dlog")")
        NOTES+=("$BACKEND -par=$par assumevalid=$av: $(sed -n 's/.*memory: //p' "$dlog")")
        wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dd/time.txt" |
            awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
        user=$(sed -n 's/.*User time (seconds): //p' "$dd/time.txt")
        sys=$(sed -n 's/.*System time (seconds): //p' "$dd/time.txt")
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dd/time.txt")
        rate=$(awk -v n="$SIGCHECKS" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')
        key=$av
        if [ "$par" = 1 ]; then
            WALL1[$key]=$wall
        fi
        speedup=-
        if [ -n "${WALL1[$key]:-}" ] && [ "$par" != 1 ]; then
            speedup=$(awk -v a="${WALL1[$key]}" -v b="$wall" 'BEGIN { printf "%.2f", a / b }')
        fi
        overfloor=$(awk -v w="$wall" -v f="$FL" 'BEGIN { printf "%.2f", w / f }')
        overcheck=$(awk -v w="$wall" -v f="$CFL" 'BEGIN { printf "%.2f", w / f }')
        printf '| %s | %s | %s | %s | %s | %s | %.0f | %.0f | %s | %s | %s | %s |\n' "$BACKEND" \
            "$par" "$([ "$av" = tip ] && echo "tip" || echo "-")" "$wall" "$user" "$sys" \
            "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
            "$(awk -v k="$anon" 'BEGIN { print k / 1024 }')" "$rate" "$speedup" "$overfloor" \
            "$overcheck"
        rm -rf "$dd/regtest/blocks" "$dd/regtest/chainstate"
    done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "What each run's node logged at shutdown:"
for n in "${NOTES[@]}"; do
    echo "- $n"
done
