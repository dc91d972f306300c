#!/usr/bin/env bash
# The whole test suite, as CI runs it: install dependencies, build with each key-value
# backend in its own tree (build/leveldb, build/rocksdb, build/lmdb, build/bdb) and run every
# test there, then build
# and test once more under AddressSanitizer + UndefinedBehaviorSanitizer, and the threaded
# tests (check pool, signature cache) under ThreadSanitizer. Unit tests count
# every case (TAP); functional tests count every test file. The last line is
#     N passed, N failed
# for everything, and the exit status is non-zero if anything failed (a build that fails
# counts as a failure of its configuration).
#
# The other three backends are built under ASan+UBSan too (asan-rocksdb, asan-lmdb,
# asan-bdb), running the unit tests that reach their storage code: the kv interface, the
# crash children, the block store, the coins and the chainstate.
#
# Environment: JOBS (default 2), BITNODE_CHECK_CONFIGS (default "leveldb rocksdb lmdb bdb
# asan tsan asan-rocksdb asan-lmdb asan-bdb"),
# SKIP_DEPS=1 to skip the package step, BITNODE_BUILD_ROOT (default <repo>/build).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_ROOT=${BITNODE_BUILD_ROOT:-$ROOT/build}
JOBS=${JOBS:-2}
CONFIGS=${BITNODE_CHECK_CONFIGS:-leveldb rocksdb lmdb bdb asan tsan asan-rocksdb asan-lmdb asan-bdb}
# What ThreadSanitizer runs: the tests whose own code has threads (the check pool, also as
# real blocks are connected in chainstate_tests; the signature cache shared by threads in
# script_tests). Not kv_tests: Debian's LevelDB is not
# built with TSan, so its lock-free memtable shows up as races TSan cannot see the
# synchronization of.
# rpc_server_tests: the RPC server's event loop, workers and queue under client threads.
TSAN_TESTS="test/unit/checkqueue_tests test/unit/script_tests test/unit/chainstate_tests test/unit/validator_tests test/unit/readahead_tests test/unit/coins_view_tests test/unit/net_service_tests test/unit/rpc_server_tests"
# What the sanitizer builds of RocksDB, LMDB and BDB run: the tests whose code reaches the
# storage backend.
BACKEND_SAN_TESTS="test/unit/kv_tests test/unit/blockstore_tests test/unit/coins_tests test/unit/coins_view_tests test/unit/chainstate_tests"
cd "$ROOT"

if [ "${SKIP_DEPS:-0}" != 1 ]; then
    contrib/install-deps.sh || { echo "check: installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }
fi

if [ -n "${BITNODE_SHARED:-}" ] && [ -d "$BITNODE_SHARED" ]; then
    export BITNODE_SHARED=$(cd "$BITNODE_SHARED" && pwd)
    export BITNODE_REQUIRE_SHARED=1
elif [ -d "$ROOT/../shared" ]; then
    export BITNODE_SHARED=$(cd "$ROOT/../shared" && pwd)
    export BITNODE_REQUIRE_SHARED=1
else
    echo "check: no shared data (../shared or \$BITNODE_SHARED): tests that need its vectors and data are skipped"
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
    ./autogen.sh >/dev/null 2>&1 || { echo "check: autogen.sh failed"; echo "0 passed, 1 failed"; exit 1; }
fi

total_pass=0
total_fail=0
summary=()

add() { # add <config> <what> <passed> <failed>
    total_pass=$((total_pass + $3))
    total_fail=$((total_fail + $4))
    summary+=("$(printf '%-12s %-11s %6d passed, %d failed' "$1" "$2" "$3" "$4")")
}

count_field() { # count_field <test-suite.log> <FIELD>
    sed -n "s/^# $2: *\\([0-9]*\\)\$/\\1/p" "$1" | head -1
}

for cfg in $CONFIGS; do
    dir="$BUILD_ROOT/$cfg"
    case "$cfg" in
    leveldb) flags=(--with-backend=leveldb) ;;
    bdb) flags=(--with-backend=bdb) ;;
    rocksdb) flags=(--with-backend=rocksdb) ;;
    lmdb) flags=(--with-backend=lmdb) ;;
    asan) flags=(--with-backend=leveldb --enable-sanitizers=address,undefined) ;;
    tsan) flags=(--with-backend=leveldb --enable-sanitizers=thread) ;;
    asan-rocksdb|asan-lmdb|asan-bdb) flags=(--with-backend="${cfg#asan-}" --enable-sanitizers=address,undefined) ;;
    *) echo "check: unknown configuration $cfg"; add "$cfg" build 0 1; continue ;;
    esac
    cfg_start=$SECONDS
    echo "=== $cfg: configure ${flags[*]} --enable-werror"
    mkdir -p "$dir"
    if ! (cd "$dir" && "$ROOT/configure" --enable-werror "${flags[@]}" >configure.out 2>&1); then
        tail -20 "$dir/configure.out"
        add "$cfg" configure 0 1
        continue
    fi
    echo "=== $cfg: build"
    # A configuration that runs a few unit tests builds only those (and the programs).
    case "$cfg" in
    tsan) only="$TSAN_TESTS" ;;
    asan-*) only="$BACKEND_SAN_TESTS" ;;
    *) only= ;;
    esac
    # kv_tests runs kv_crash_child (killed at random moments), not a test itself.
    helpers=
    case " $only " in *" test/unit/kv_tests "*) helpers=test/unit/kv_crash_child ;; esac
    if [ -n "$only" ]; then
        build_check=(make -j"$JOBS" $only $helpers)
    else
        build_check=(make -j"$JOBS" check TESTS=)
    fi
    if ! (cd "$dir" && make -j"$JOBS" >build.out 2>&1 && "${build_check[@]}" >>build.out 2>&1); then
        grep -E 'error|Error' "$dir/build.out" | head -30
        add "$cfg" build 0 1
        continue
    fi
    echo "=== $cfg: unit tests"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    if [ -n "$only" ]; then
        (cd "$dir" && make -j"$JOBS" check TESTS="$only" check_PROGRAMS="$only $helpers" >check.out 2>&1)
    else
        (cd "$dir" && make -j"$JOBS" check >check.out 2>&1)
    fi
    log="$dir/test-suite.log"
    if [ -f "$log" ]; then
        p=$(count_field "$log" PASS); f=$(count_field "$log" FAIL)
        e=$(count_field "$log" ERROR); x=$(count_field "$log" XPASS)
        p=${p:-0}; f=$(( ${f:-0} + ${e:-0} + ${x:-0} ))
        grep -E '^(FAIL|ERROR|XPASS):' "$dir/check.out" | head -40
        add "$cfg" unit "$p" "$f"
    else
        tail -20 "$dir/check.out"
        add "$cfg" unit 0 1
    fi
    if [ -z "$only" ] && [ -f "$ROOT/test/functional/test_runner.py" ] && [ -x "$dir/bitnoded" ]; then
        echo "=== $cfg: functional tests"
        # Debian's python3, where install-deps.sh put python3-zmq (not a python3 earlier on PATH)
        out=$(BITNODE_BUILDDIR="$dir" /usr/bin/python3 "$ROOT/test/functional/test_runner.py" --builddir "$dir" 2>&1)
        # every line: a failing test's whole output comes before the summary line
        echo "$out"
        last=$(echo "$out" | tail -1)
        if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
            add "$cfg" functional "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
        else
            add "$cfg" functional 0 1
        fi
    fi
    echo "=== $cfg: done in $((SECONDS - cfg_start)) s"
done

echo
echo "=== summary"
for line in "${summary[@]}"; do
    echo "$line"
done
echo "whole run: $SECONDS s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]
