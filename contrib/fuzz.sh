#!/usr/bin/env bash
# Runs one libFuzzer target of test/fuzz/ for a while, under AddressSanitizer and
# UndefinedBehaviorSanitizer:
#     contrib/fuzz.sh TARGET SECONDS
# Builds it first if needed, in $BITNODE_FUZZ_BUILD (default build/fuzz: ./configure CC=clang
# --enable-fuzz --enable-sanitizers=address,undefined --with-backend=$BACKEND, default leveldb).
# It starts from the target's seeds in test/fuzz/corpus/TARGET (read only) and a local corpus
# ($FUZZ_CORPUS/TARGET, default <build>/fuzz-corpus/TARGET), where libFuzzer keeps every new
# input that reaches new coverage, so the next run goes on from there. A crash, leak,
# sanitizer report or timeout is saved as <build>/fuzz-artifacts/TARGET-crash-<sha1> (replay
# it with test/fuzz/TARGET_replay FILE); keep the input in test/fuzz/corpus/TARGET once fixed.
# Ends with one line: target, seconds run, executions, exec/s, cov, ft, corpus size, crashes.
# Extra libFuzzer flags: FUZZ_FLAGS (e.g. "-max_len=4096 -jobs=1"). Runs at nice 19.
set -uo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 TARGET SECONDS" >&2
    exit 2
fi
TARGET=$1
SECS=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BITNODE_FUZZ_BUILD:-$ROOT/build/fuzz}
CORPUS=${FUZZ_CORPUS:-$BUILD/fuzz-corpus}/$TARGET
SEEDS=$ROOT/test/fuzz/corpus/$TARGET
ART=$BUILD/fuzz-artifacts
if [ ! -f "$ROOT/test/fuzz/$TARGET.c" ]; then
    echo "fuzz: no target test/fuzz/$TARGET.c (targets: $(cd "$ROOT/test/fuzz" && ls *.c | sed 's/\.c$//' | tr '\n' ' '))" >&2
    exit 2
fi
if [ ! -f "$BUILD/Makefile" ]; then
    if [ ! -x "$ROOT/configure" ]; then
        (cd "$ROOT" && ./autogen.sh >/dev/null 2>&1) || { echo "fuzz: autogen.sh failed" >&2; exit 1; }
    fi
    mkdir -p "$BUILD"
    (cd "$BUILD" && "$ROOT/configure" CC=clang --enable-fuzz --enable-sanitizers=address,undefined \
        --with-backend="${BACKEND:-leveldb}" >configure.out 2>&1) ||
        { tail -20 "$BUILD/configure.out"; echo "fuzz: configure failed" >&2; exit 1; }
fi
(cd "$BUILD" && nice -n 10 make -j"${JOBS:-2}" "test/fuzz/$TARGET" >make-fuzz.out 2>&1) ||
    { tail -30 "$BUILD/make-fuzz.out"; echo "fuzz: building test/fuzz/$TARGET failed" >&2; exit 1; }
mkdir -p "$CORPUS" "$ART"
dirs=("$CORPUS")
[ -d "$SEEDS" ] && dirs+=("$SEEDS")
LOG=$BUILD/fuzz-$TARGET.log
before=$(ls "$CORPUS" | wc -l)
echo "fuzz: $TARGET for ${SECS}s, corpus $CORPUS ($before inputs) + seeds $SEEDS; log $LOG"
t0=$SECONDS
# shellcheck disable=SC2086
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/test/fuzz/lsan.supp} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    nice -n 19 "$BUILD/test/fuzz/$TARGET" -max_total_time="$SECS" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$ART/$TARGET-" ${FUZZ_FLAGS:-} "${dirs[@]}" >"$LOG" 2>&1
rc=$?
secs_run=$((SECONDS - t0))
last=$(grep -E '^#[0-9]+' "$LOG" | tail -1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
after=$(ls "$CORPUS" | wc -l)
crashes=$(grep -cE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: libFuzzer|deadly signal' "$LOG")
grep -E '^==[0-9]+==ERROR|runtime error:|SUMMARY|Test unit written to|deadly signal' "$LOG" | head -20
echo "fuzz: $TARGET ${secs_run}s execs=${execs:-?} exec/s=${rate:-?} cov=${cov:-?} ft=${ft:-?} corpus=$before->$after crashes=$crashes exit=$rc"
exit $rc
