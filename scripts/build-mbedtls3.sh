#!/usr/bin/env bash
# Builds Mbed TLS 3.6.5 (static libraries, TLS 1.3 enabled: its default mbedtls_config.h) into a
# cache outside the repository, ${ZMOTE_CACHE:-$HOME/.cache/zmote}/mbedtls-3.6.5, for the trees
# that test TLS 1.3 (mutual TLS with Rust Zenoh, which speaks TLS 1.3 only when both sides show a
# certificate). The sources are upstream's, as vendored by the crates.io crate mbedtls-rs-sys
# 0.3.1, whose sha256 is pinned here. The build is skipped when the prefix holds an install made
# from that archive. Progress goes to stderr; stdout is the install prefix alone.
set -euo pipefail

version=3.6.5
crate=mbedtls-rs-sys-0.3.1
url=https://static.crates.io/crates/mbedtls-rs-sys/$crate.crate
sha256=ed3d6fe75492994df511a63da8de669a0c59938ada3345e3d4756aec095d2ffb
cache=${ZMOTE_CACHE:-$HOME/.cache/zmote}
prefix=$cache/mbedtls-$version
stamp=$prefix/source.sha256

for tool in cmake curl sha256sum tar; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (Mbed TLS $version is built with it)" >&2; exit 1; }
done

if [ -f "$prefix/lib/libmbedtls.a" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sha256" ]; then
    echo "mbedtls-$version: up to date" >&2
    echo "$prefix"
    exit 0
fi

work=$cache/mbedtls-$version-build
rm -rf "$work"
mkdir -p "$work"
archive=$work/$crate.crate
echo "mbedtls-$version: fetching $url" >&2
curl -fsSL --retry 3 -o "$archive" "$url"
echo "$sha256  $archive" | sha256sum -c --quiet - >&2 ||
    { echo "error: $archive does not match its pinned sha256" >&2; exit 1; }
tar -xzf "$archive" -C "$work"

log=$work/build.log
echo "mbedtls-$version: building (cmake, static libraries; a few minutes on two cores)" >&2
start=$SECONDS
rm -rf "$prefix"
if ! { cmake -S "$work/$crate/mbedtls" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
           -DENABLE_PROGRAMS=OFF -DENABLE_TESTING=OFF -DUSE_SHARED_MBEDTLS_LIBRARY=OFF \
           -DUSE_STATIC_MBEDTLS_LIBRARY=ON &&
       cmake --build "$work/build" -j2 && cmake --install "$work/build"; } </dev/null >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "error: Mbed TLS $version did not build (full log: $log)" >&2
    exit 1
fi
echo "$sha256" >"$stamp"
rm -rf "$work"
echo "mbedtls-$version: built in $((SECONDS - start))s" >&2
echo "$prefix"
