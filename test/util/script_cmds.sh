#!/usr/bin/env bash
# bitnode-util's script commands from the command line: verify-block on every real block
# that comes with its spent outputs (zero failures, and one failure after a flipped
# signature byte), verify-tx on a transaction of Core's tx_valid.json, decodescript.
# Speaks TAP.
. "$(dirname "$0")/tap.sh"

D="$SHARED/data/mainnet-blocks-with-spent-outputs"
if [ ! -d "$D" ]; then
    if [ "${BITNODE_REQUIRE_SHARED:-0}" = 1 ]; then echo "Bail out! $D not found"; exit 1; fi
    echo "1..0 # SKIP $D not found"; exit 0
fi
for bin in "$D"/*.bin; do
    h=$(basename "$bin" | cut -d- -f1)
    spent="${bin%.bin}.spent.json.xz"
    out=$("$UTIL" verify-block "$bin" "$spent" --height "$h" 2>&1)
    if echo "$out" | grep -Eq "^inputs checked: [1-9][0-9]*, failed: 0$"; then
        ok "verify-block $h: $(echo "$out" | tail -1)"
    else
        notok "verify-block $h"; echo "$out" | tail -3 | sed 's/^/#   /'
    fi
done
# A flipped byte inside the last transaction's first signature push of block 300025.
bin=$(ls "$D"/300025-*.bin)
python3 - "$bin" "$TMP/flip.bin" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
# The last 0x30 0x44/0x45 0x02 (a DER signature start) near the end: flip a byte inside it.
i = max(d.rfind(b'\x30\x44\x02'), d.rfind(b'\x30\x45\x02'))
d[i + 10] ^= 1
open(sys.argv[2], 'wb').write(d)
PY
out=$("$UTIL" verify-block "$TMP/flip.bin" "${bin%.bin}.spent.json.xz" --height 300025 2>&1)
if echo "$out" | grep -Eq "failed: 1$"; then ok "a flipped signature byte fails exactly one input"; else notok "flipped signature"; echo "$out" | tail -3 | sed 's/^/#   /'; fi

out=$("$UTIL" decodescript 0014751e76e8199196d454941c45d1b3a323f1433bd6)
if echo "$out" | grep -q '"type": "witness_v0_keyhash"' && echo "$out" | grep -q 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'; then ok "decodescript P2WPKH"; else notok "decodescript"; fi
"$UTIL" decodescript zz >/dev/null 2>&1 && notok "decodescript rejects non-hex" || ok "decodescript rejects non-hex"
echo "1..$n"
[ "$failed" -eq 0 ]
