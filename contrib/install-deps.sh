#!/usr/bin/env bash
# Installs every Debian package that bitnode's build, tests and benchmarks need.
# Idempotent: when everything is present it changes nothing; otherwise it runs
# `apt-get update` first and installs what is missing. Needs root (or sudo).
set -euo pipefail

PACKAGES=(
    build-essential autoconf automake libtool pkg-config
    libsecp256k1-dev libssl-dev libevent-dev libjansson-dev
    libleveldb-dev librocksdb-dev liblmdb-dev libdb5.3-dev liblzma-dev
    libzmq3-dev python3 python3-zmq xz-utils procps
)

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#PACKAGES[@]} packages present"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
