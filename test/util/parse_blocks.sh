#!/usr/bin/env bash
# bitnode-util parse-blocks against Core's answers: the bundled regtest chain (count of
# blocks and transactions, tip), the shared regtest reorg files (in arrival order and
# shuffled), mainnet blocks 0-438, and damaged copies that must fail with a reason.
# Speaks TAP.
. "$(dirname "$0")/tap.sh"
# expect <name> <output-file> <line...>: every line must appear in the output
expect() {
    local name=$1 out=$2; shift 2
    for want in "$@"; do
        if ! grep -qxF "$want" "$out"; then
            echo "# missing line: $want"; sed 's/^/#   /' "$out" | tail -15
            notok "$name"; return
        fi
    done
    ok "$name"
}
json() { python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# 1. The bundled regtest-small chain.
EXP="$SRC/test/data/regtest-small/expected.json"
"$UTIL" parse-blocks "$SRC/test/data/regtest-small/blk00000.dat" >"$TMP/out" 2>&1
rc=$?
ntx=$(json "$EXP" "sum(e['block_ntx'])")
nblk=$(json "$EXP" "e['block_files'][0]['blocks']")
tip="tip: height $(json "$EXP" "e['tip']['height']") hash $(json "$EXP" "e['tip']['hash']")"
[ $rc -eq 0 ] && ok "regtest-small exits 0" || notok "regtest-small exits 0 (got $rc)"
expect "regtest-small counts and tip equal expected.json" "$TMP/out" "blocks: $nblk" "transactions: $ntx" "$tip"

# 2. Shared data: reorg in arrival order and shuffled; mainnet 0-438.
if [ -d "$SHARED/data/regtest-reorg" ]; then
    R="$SHARED/data/regtest-reorg"
    tip="tip: height $(json "$R/expected.json" "e['tip']['height']") hash $(json "$R/expected.json" "e['tip']['hash']")"
    "$UTIL" parse-blocks "$R/blk-reorg.dat" >"$TMP/out" 2>&1
    expect "regtest-reorg: 176 blocks, tip is the longer branch" "$TMP/out" "blocks: 176" "$tip"
    "$UTIL" -regtest parse-blocks "$R/blk-shuffled.dat" >"$TMP/out" 2>&1
    expect "regtest-reorg shuffled: blocks before parents still link" "$TMP/out" "blocks: 166" "$tip"
    M="$SHARED/data/mainnet-blocks-0-438"
    tip="tip: height 438 hash $(json "$M/expected.json" "e['tip']['hash']")"
    "$UTIL" parse-blocks "$M/blk-mainnet-0-438.dat" >"$TMP/out" 2>&1
    expect "mainnet 0-438 on main parameters" "$TMP/out" "blocks: 439" "$tip" \
        "file: $M/blk-mainnet-0-438.dat (main, $(stat -c %s "$M/blk-mainnet-0-438.dat") bytes, 439 records, 0 bytes skipped)"
elif [ "${BITNODE_REQUIRE_SHARED:-0}" = 1 ]; then
    echo "Bail out! $SHARED/data not found"; exit 1
else
    echo "# $SHARED/data not found: shared-data cases skipped"
fi

# 3. Damage: a truncated copy, a flipped byte inside a transaction, a missing parent.
head -c 2886000 "$SRC/test/data/regtest-small/blk00000.dat" >"$TMP/trunc.dat"
"$UTIL" parse-blocks "$TMP/trunc.dat" >"$TMP/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "is cut short by the end of the file" "$TMP/out"; then
    ok "truncated file fails naming the cut record"
else
    notok "truncated file fails naming the cut record (rc $rc)"
fi
python3 - "$SRC/test/data/regtest-small/blk00000.dat" "$TMP/flip.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read()[:2886109])
d[200000] ^= 0x01   # inside some block's transactions
open(sys.argv[2], 'wb').write(d)
PY
"$UTIL" parse-blocks "$TMP/flip.dat" >"$TMP/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -Eq "bad-txnmrklroot|bad block" "$TMP/out"; then
    ok "flipped byte is caught"
else
    notok "flipped byte is caught (rc $rc)"; tail -5 "$TMP/out" | sed 's/^/#   /'
fi
python3 - "$SRC/test/data/regtest-small/blk00000.dat" "$TMP/gap.dat" <<'PY'
import sys, struct
d = open(sys.argv[1], 'rb').read()
out, pos, i = bytearray(), 0, 0
while pos + 8 <= len(d) and d[pos:pos+4] == b'\xfa\xbf\xb5\xda':
    size = struct.unpack('<I', d[pos+4:pos+8])[0]
    if i != 500:
        out += d[pos:pos+8+size]
    pos += 8 + size; i += 1
open(sys.argv[2], 'wb').write(out)
PY
"$UTIL" parse-blocks "$TMP/gap.dat" >"$TMP/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "800 blocks do not link" "$TMP/out"; then
    ok "missing block 500 leaves its 800 descendants unlinked"
else
    notok "missing block 500 leaves its 800 descendants unlinked (rc $rc)"; tail -3 "$TMP/out" | sed 's/^/#   /'
fi
# Only block 501 lacks its parent; 502 and on have theirs in the file.
if [ "$(grep -c 'is not in the files' "$TMP/out")" = 1 ]; then
    ok "only the block whose parent is absent is said to miss it"
else
    notok "only the block whose parent is absent is said to miss it"; grep 'not in the files' "$TMP/out" | head -3 | sed 's/^/#   /'
fi
if [ -d "$SHARED/data/mainnet-blocks-0-438" ]; then
    python3 - "$SHARED/data/mainnet-blocks-0-438/blk-mainnet-0-438.dat" "$TMP/pow.dat" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read())
size = struct.unpack('<I', d[4:8])[0]
nonce = 8 + size + 8 + 76   # block 1's header nonce
d[nonce] ^= 0x01
open(sys.argv[2], 'wb').write(bytes(d))
PY
    "$UTIL" parse-blocks "$TMP/pow.dat" >"$TMP/out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && grep -q "does not meet its proof of work 1d00ffff (high-hash)" "$TMP/out"; then
        ok "a mainnet block whose nonce changed fails its proof of work"
    else
        notok "a mainnet block whose nonce changed fails its proof of work (rc $rc)"; tail -3 "$TMP/out" | sed 's/^/#   /'
    fi
fi
"$UTIL" parse-blocks /nonexistent.dat >"$TMP/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "/nonexistent.dat: No such file" "$TMP/out"; then
    ok "missing file is named"
else
    notok "missing file is named"
fi
"$UTIL" bogus >"$TMP/out" 2>&1 && notok "unknown command fails" || ok "unknown command fails"

echo "1..$n"
[ "$failed" -eq 0 ]
