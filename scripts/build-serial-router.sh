#!/usr/bin/env bash
# Builds tools/serial-router (a Rust Zenoh 1.10.2 router with the serial link, which the PyPI
# build lacks) for the serial interop tests, into a cache outside the repository:
# ${ZMOTE_CACHE:-$HOME/.cache/zmote}/serial-router/bin/zmote-serial-router. The build is skipped
# when the binary there was made from the same sources (Cargo.toml, Cargo.lock, src/) and the same
# rustc. A fresh build takes a few minutes on two cores; the time is printed on stderr. stdout is the
# binary's path alone.
set -euo pipefail
cd "$(dirname "$0")/.."

src=tools/serial-router
cache=${ZMOTE_CACHE:-$HOME/.cache/zmote}/serial-router
bin=$cache/bin/zmote-serial-router
stamp=$cache/bin/sources.sha256

for tool in cargo rustc sha256sum; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (the serial router is built with Rust)" >&2; exit 1; }
done

hash=$( { rustc --version; cat "$src/Cargo.toml" "$src/Cargo.lock"; find "$src/src" -type f -print0 | sort -z |
          xargs -0 cat; } | sha256sum | cut -d' ' -f1)
if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    echo "serial-router: up to date" >&2
    echo "$bin"
    exit 0
fi

mkdir -p "$cache/bin"
log=$cache/build.log
echo "serial-router: building (cargo, release profile; a few minutes when nothing is cached)" >&2
start=$SECONDS
if ! CARGO_TARGET_DIR=$cache/target cargo build --release --locked --manifest-path "$src/Cargo.toml" \
        </dev/null >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "error: the serial router did not build (full log: $log)" >&2
    exit 1
fi
cp "$cache/target/release/zmote-serial-router" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$hash" >"$stamp"
echo "serial-router: built in $((SECONDS - start))s" >&2
echo "$bin"
