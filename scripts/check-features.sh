#!/usr/bin/env bash
# Compiles every library source under a set of option combinations, warnings as errors, so that
# an option switched off leaves no dangling reference, unused helper or broken #if behind. The
# combinations are those a firmware picks (client only, single thread, publisher or subscriber
# only, no fragmentation, no heap...), plus each feature off alone. Through ccache when it is
# there: a file that an option does not touch preprocesses to the same text, and is compiled once
# for all the combinations (and all the runs) that leave it so. The objects go to OUT.
#
# usage: scripts/check-features.sh [OUT]    (OUT defaults to build/features)
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/features}
cc=${CC:-gcc}
launcher=()
if command -v ccache >/dev/null; then
    launcher=(ccache)
fi
flags=(-std=c11 -c -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wundef -Werror -Iinclude -Iport/posix -Isrc)
sources=(src/*/*.c port/posix/*.c)

features=(MULTI_THREAD PUBLICATION SUBSCRIPTION UNICAST_PEER FRAGMENTATION BATCHING LOCAL_SUBSCRIBER LINK_TCP LINK_SERIAL
          ENCODING_VALUES SESSION_CHECK AUTO_RECONNECT INTEREST QUERY QUERYABLE LOCAL_QUERYABLE MATCHING LIVELINESS
          MULTICAST_TRANSPORT LINK_UDP_MULTICAST SCOUTING LINK_UDP_UNICAST)
combos=()
for f in "${features[@]}"; do
    combos+=("-DZ_FEATURE_$f=0")
done
combos+=(
    "-DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_FRAGMENTATION=0 -DZ_FEATURE_LINK_TCP=0"
    "-DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_LINK_UDP_UNICAST=1"
    "-DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_LINK_UDP_UNICAST=1 -DZ_FEATURE_MULTI_THREAD=0"
    "-DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_LINK_UDP_UNICAST=1 -DZ_FEATURE_LINK_SERIAL=0 -DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_MULTI_THREAD=0"
    "-DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_PUBLICATION=0 -DZ_FEATURE_INTEREST=0"
    "-DZ_FEATURE_QUERY=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_SUBSCRIPTION=0"
    "-DZ_FEATURE_LIVELINESS=0 -DZ_FEATURE_SUBSCRIPTION=0"
    "-DZ_FEATURE_LIVELINESS=0 -DZ_FEATURE_QUERY=0"
    "-DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_PUBLICATION=0"
    "-DZ_FEATURE_QUERY=0 -DZ_FEATURE_UNICAST_PEER=0"
    "-DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_PUBLICATION=0 -DZ_FEATURE_UNICAST_PEER=0"
    "-DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_BATCHING=0 -DZ_FEATURE_AUTO_RECONNECT=0 -DZ_FEATURE_SESSION_CHECK=0 -DZM_LOG_LEVEL=0"
    "-DZ_FEATURE_UNSTABLE_API -DZ_FEATURE_ADMIN_SPACE=1 -DZ_FEATURE_ADVANCED_PUBLICATION=1 -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1 -DZM_LOG_LEVEL=4"
    "-DZ_FEATURE_UNSTABLE_API -DZ_FEATURE_ADVANCED_PUBLICATION=1 -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_MATCHING=0"
    "-DZ_FEATURE_UNSTABLE_API -DZ_FEATURE_ADMIN_SPACE=1 -DZ_FEATURE_ADVANCED_PUBLICATION=1 -DZ_FEATURE_CONNECTIVITY=1 -DZM_LOG_LEVEL=4"
    "-DZ_FEATURE_UNSTABLE_API -DZ_FEATURE_CONNECTIVITY=1 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_LINK_UDP_MULTICAST=1 -DZ_FEATURE_LINK_UDP_UNICAST=1"
    "-DZ_FEATURE_UNSTABLE_API -DZ_FEATURE_CONNECTIVITY=1 -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_MATCHING=0 -DZ_FEATURE_LIVELINESS=0 -DZM_NO_HEAP=1"
    "-DZM_NO_HEAP=1"
    "-DZM_NO_HEAP=1 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_UNICAST_PEER=0 -DZM_BATCH_UNICAST_SIZE=2048"
    "-DZM_CODEC_FULL=0"
    "-DZM_CODEC_FULL=0 -DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_FRAGMENTATION=0 -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_LINK_TCP=0"
    "-DZM_CODEC_FULL=0 -DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_SUBSCRIPTION=0"
    "-DZM_CODEC_FULL=0 -DZ_FEATURE_UNICAST_PEER=0"
    "-DZ_FEATURE_MULTICAST_DECLARATIONS=1"
    "-DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_LINK_UDP_MULTICAST=1"
    "-DZ_FEATURE_LINK_UDP_MULTICAST=1 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_FRAGMENTATION=0 -DZ_FEATURE_MATCHING=0"
    "-DZ_FEATURE_LINK_UDP_MULTICAST=1 -DZ_FEATURE_QUERY=0 -DZ_FEATURE_LIVELINESS=0 -DZ_FEATURE_INTEREST=0"
    "-DZ_FEATURE_LINK_UDP_MULTICAST=1 -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_MATCHING=0"
    "-DZ_FEATURE_LINK_UDP_MULTICAST=1 -DZM_CODEC_FULL=0 -DZM_LOG_LEVEL=0"
    "-DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_SCOUTING=1"
    "-DZ_FEATURE_SCOUTING=1 -DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_MULTI_THREAD=0 -DZM_LOG_LEVEL=0"
    "-DZ_FEATURE_SCOUTING=1 -DZ_FEATURE_MULTI_THREAD=0 -DZM_NO_HEAP=1"
    "-DZ_FEATURE_LINK_TLS=1 -DZ_FEATURE_MULTI_THREAD=0"
    "-DZ_FEATURE_LINK_TLS=1 -DZ_FEATURE_UNICAST_PEER=0 -DZM_LOG_LEVEL=0"
    "-DZM_AUTH_USRPWD=0"
    "-DZM_AUTH_USRPWD=0 -DZM_CODEC_FULL=0 -DZ_FEATURE_UNICAST_PEER=0"
)

failed=0
rm -rf "$out"
mkdir -p "$out"
for i in "${!combos[@]}"; do
    combo=${combos[$i]}
    # shellcheck disable=SC2206
    defs=($combo)
    mkdir -p "$out/$i"
    # each file to OUT/i/<its path with / as _>.o
    printf '%s\n' "${sources[@]}" |
        xargs -P "$(nproc)" -I{} sh -c 'o=$1/$(echo "$2" | tr / _); shift 2; exec "$@" -o "$o.o"' sh "$out/$i" {} \
            "${launcher[@]}" "$cc" "${flags[@]}" "${defs[@]}" {} 2>"$out/errors.log" ||
        { echo "check-features: FAILED with $combo" >&2; head -n 20 "$out/errors.log" >&2; failed=1; }
done

# zenoh-pico's log switches give the level zenoh-pico gives them (ZENOH_DEBUG wins, as there).
for pair in "ZENOH_LOG_ERROR:1" "ZENOH_LOG_WARN:2" "ZENOH_LOG_INFO:3" "ZENOH_LOG_DEBUG:4" "ZENOH_LOG_TRACE:4" \
    "ZENOH_DEBUG=0:0" "ZENOH_DEBUG=1:1" "ZENOH_DEBUG=2:3" "ZENOH_DEBUG=3:4" "ZENOH_DEBUG=0 -DZENOH_LOG_INFO:0" \
    "ZM_LOG_LEVEL=3 -DZENOH_LOG_ERROR:3" "NDEBUG:2"; do
    # shellcheck disable=SC2086
    level=$(printf '#include "zmote/opt.h"\nZM_LOG_LEVEL\n' | "$cc" -E -P -Iinclude -D${pair%:*} - | tail -n 1)
    if [ "$level" != "${pair#*:}" ]; then
        echo "check-features: -D${pair%:*} gives ZM_LOG_LEVEL $level, not ${pair#*:}" >&2
        failed=1
    fi
done
[ "$failed" = 0 ] || exit 1
echo "check-features: ${#combos[@]} option combinations compile cleanly (${#sources[@]} files each)"
