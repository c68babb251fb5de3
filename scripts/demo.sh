#!/usr/bin/env bash
# The first thing to run: builds zmote-dump and feeds it messages that Rust Zenoh 1.10.2 put on
# the wire (tests/vectors/rust-wire.txt), so what zmote decodes can be read next to what Rust
# meant. The live demo, two zmote peers doing pub/sub, takes this place once the session layer
# exists.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh build
dir=build/demo
mkdir -p "$dir"
if ! { cmake -S . -B "$dir" -G Ninja -DZM_BUILD_TESTS=OFF &&
       ninja -C "$dir" -j2 zmote-dump; } >"$dir/build.log" 2>&1; then
    cat "$dir/build.log" >&2
    echo "error: zmote-dump did not build (log: $dir/build.log)" >&2
    exit 1
fi
dump=$dir/zmote-dump
vectors=tests/vectors/rust-wire.txt

# Hex of the vector called $1; with $2 = tcp, of the length-prefixed form listed under it.
vector_hex() {
    awk -v name="$1" -v want="${2:-}" '
        index($0, name ": [") == 1 { found = 1; if (want == "") { print; exit } ; next }
        found && want == "tcp" && /^  tcp: \[/ { print; exit }
    ' "$vectors" | sed -E 's/.*: \[[0-9]+\] //'
}

show() {
    local layer=$1 name=$2 form=${3:-} hex
    hex=$(vector_hex "$name" "$form")
    [ -n "$hex" ] || { echo "error: vector not found in $vectors: $name" >&2; exit 1; }
    printf '\n-- %s%s  (--layer %s)\n   rust bytes: %s\n' "$name" "${form:+, as sent on TCP}" "$layer" "$hex"
    "$dump" --layer "$layer" "${hex// /}" | sed 's/^/   /'
}

echo "The live demo (two zmote peers, pub/sub over TCP) is not built yet: the session layer is in progress."
echo "Meanwhile, zmote's codec decodes messages captured from Rust Zenoh 1.10.2 ($vectors):"

show scouting "HELLO v9 router zid=0102 [tcp/10.0.0.1:7447]"
show transport "INIT Syn client zid=0102 defaults, QoS, Patch=1"
show transport "OPEN Syn lease=10s sn=0x1234 cookie=deadbeef"
show network "DECLARE D_SUBSCRIBER id=1 'demo/**' (default QoS, as a C client might send)"
show transport "FRAME reliable sn=5 [PUSH 'demo/example' PUT 'hi']"
show stream "FRAME reliable sn=0x1235 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2']" tcp

name="PUSH scope=3 suffix='/x' M=sender QoS(prio4,block,express) PUT ts+enc!(1)+attachment(01 02) 'hi'"
hex=$(vector_hex "$name")
again=$("$dump" --layer network --reencode "${hex// /}")
printf '\n-- decode then re-encode: %s\n   rust bytes:  %s\n   zmote bytes: %s\n' "$name" "$hex" "$again"
if [ "$(tr -d ' \n' <<<"$again" | tr 'A-F' 'a-f')" != "${hex// /}" ]; then
    echo "error: zmote re-encoded different bytes" >&2
    exit 1
fi
echo "   identical"
