#!/usr/bin/env bash
# bitnode-util check-headers against the shared header chains: mainnet 0-10236 (from genesis,
# 5 retargets clamped at the limit), testnet4 141120-143136 (BIP94's retarget at 143136 and
# the 20-minute rule), signet 0-2015 (and that it is not the main chain), and damaged
# copies (a broken link, a changed nonce, wrong bits, a time below the median) that must
# fail naming Core's reject reason. Speaks TAP.
. "$(dirname "$0")/tap.sh"
# check <name> <want-rc> <line...> : the last run's output must hold every line
check() {
    local name=$1 want=$2; shift 2
    if [ "$rc" != "$want" ]; then
        echo "# exit $rc, wanted $want"; tail -5 "$TMP/out" | sed 's/^/#   /'; notok "$name"; return
    fi
    for line in "$@"; do
        if ! grep -qF -- "$line" "$TMP/out"; then
            echo "# missing: $line"; tail -8 "$TMP/out" | sed 's/^/#   /'; notok "$name"; return
        fi
    done
    ok "$name"
}
D="$SHARED/data"
if [ ! -d "$D/mainnet-headers-0-10236" ]; then
    if [ "${BITNODE_REQUIRE_SHARED:-0}" = 1 ]; then
        echo "not ok 1 - $D/mainnet-headers-0-10236 not found"; echo "1..1"; exit 1
    fi
    echo "ok 1 # SKIP shared data not found"; echo "1..1"; exit 0
fi

M="$D/mainnet-headers-0-10236/headers-mainnet-0-10236.bin"
"$UTIL" check-headers "$M" >"$TMP/out" 2>&1; rc=$?
check "mainnet 0-10236 passes with 5 retargets" 0 "headers: 10237 (heights 0..10236)" \
    "tip: height 10236 hash 000000004f74d42205b9d7ae1cb5c1591e723894a71358fce73b7e0919628161" \
    "retargets checked: 5"
# Chain work of 10237 blocks at difficulty 1: 10237 * 0x100010001.
want=$(python3 -c "print('chainwork: %064x' % (10237 * 0x100010001))")
check "mainnet 0-10236 chain work is 10237 times the work of difficulty 1" 0 "$want"

T="$D/testnet4-headers-141120-143136/headers-testnet4-141120-143136.bin"
"$UTIL" -testnet4 check-headers "$T" --height 141120 >"$TMP/out" 2>&1; rc=$?
check "testnet4 141120-143136 passes, BIP94 retarget at 143136 checked exactly" 0 \
    "headers: 2017 (heights 141120..143136)" "retargets checked: 1"
"$UTIL" -testnet check-headers "$T" --height 141120 >"$TMP/out" 2>&1; rc=$?
check "the same headers under testnet3's rule (no BIP94) fail at the retarget" 1 \
    "height 143136:" "(bad-diffbits)"

S="$D/signet-headers-0-2015/headers-signet-0-2015.bin"
"$UTIL" -signet check-headers "$S" >"$TMP/out" 2>&1; rc=$?
check "signet 0-2015 passes" 0 "headers: 2016 (heights 0..2015)" \
    "tip: height 2015 hash 000000c0a3841a6ae64c45864ae25314b40fd522bfb299a4b6bd5ef288cae74d"
"$UTIL" check-headers "$S" >"$TMP/out" 2>&1; rc=$?
check "signet headers are not the main chain" 1 "is not the main genesis block"

# Damaged copies of mainnet 0-10236.
damage() { # damage <offset> <xor-byte> <out>
    python3 - "$M" "$1" "$2" "$3" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[int(sys.argv[2])] ^= int(sys.argv[3])
open(sys.argv[4], 'wb').write(bytes(d))
PY
}
damage $((80 * 5000 + 4)) 1 "$TMP/link.bin"        # a bit of header 5000's prev hash
"$UTIL" check-headers "$TMP/link.bin" >"$TMP/out" 2>&1; rc=$?
check "a broken link is bad-prevblk" 1 "height 5000:" "(bad-prevblk)"
damage $((80 * 7000 + 76)) 1 "$TMP/nonce.bin"      # header 7000's nonce
"$UTIL" check-headers "$TMP/nonce.bin" >"$TMP/out" 2>&1; rc=$?
check "a changed nonce is high-hash" 1 "height 7000:" "(high-hash)"
python3 - "$M" "$TMP/bits.bin" "$TMP/time.bin" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read()[:80 * 3000])
bits = bytearray(d)
struct.pack_into('<I', bits, 80 * 2999 + 72, 0x1c00ffff)   # harder than required
open(sys.argv[2], 'wb').write(bytes(bits))
t = bytearray(d)
struct.pack_into('<I', t, 80 * 2999 + 68, 1231006505)      # the genesis time
open(sys.argv[3], 'wb').write(bytes(t))
PY
"$UTIL" check-headers "$TMP/bits.bin" >"$TMP/out" 2>&1; rc=$?
check "bits the chain does not require are bad-diffbits" 1 \
    "height 2999:" "has bits 1c00ffff, the chain requires 1d00ffff (bad-diffbits)"
"$UTIL" check-headers "$TMP/time.bin" >"$TMP/out" 2>&1; rc=$?
check "a time at or below the median time past is time-too-old" 1 "height 2999:" "(time-too-old)"
printf 'short' >"$TMP/short.bin"
"$UTIL" check-headers "$TMP/short.bin" >"$TMP/out" 2>&1; rc=$?
check "a file that is not whole headers is refused" 1 "is not a whole number of 80-byte headers"

echo "1..$n"
[ "$failed" -eq 0 ]
