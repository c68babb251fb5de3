#!/usr/bin/env bash
# The size table: apps written against zenoh-pico's API (tools/sizes/app_*.c), each linked for
# Cortex-M4 (-Os, function sections, --gc-sections, newlib-nano) with the library built in the
# configuration that app needs (every other feature off), and the library's share of the image
# by section kind, summed from the linker map over the objects of its archive. The
# single-thread app links with port/baremetal over a stub board; the threaded one with the
# stand-in RTOS port of tools/sizes/rtos (port/baremetal has no threads). Each share of flash
# (text + rodata + data) has a limit, which fails the script when passed (zenoh-pico 1.9.0's
# share of the same app is above it), and the goal the library is headed for, printed beside it.
#
# usage: scripts/sizes.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/sizes}
cc=arm-none-eabi-gcc
for tool in $cc arm-none-eabi-ar python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done

cflags=(-mcpu=cortex-m4 -mthumb -Os -std=c11 -ffunction-sections -fdata-sections -Iinclude -Isrc
        -DZM_ASSERT_ENABLED=0 -DZM_LOG_LEVEL=0 -DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_LINK_SERIAL=1
        -DZ_FEATURE_UNICAST_PEER=0 -DZ_FEATURE_FRAGMENTATION=0 -DZ_FEATURE_BATCHING=0
        -DZ_FEATURE_INTEREST=0 -DZ_FEATURE_LOCAL_SUBSCRIBER=0 -DZ_FEATURE_ENCODING_VALUES=0
        -DZ_FEATURE_SESSION_CHECK=0 -DZ_FEATURE_AUTO_RECONNECT=0 -DZ_FEATURE_SCOUTING=0
        -DZM_BATCH_UNICAST_SIZE=2048
        -DZM_CODEC_FULL=0)
ldflags=(-mcpu=cortex-m4 -mthumb -Wl,--gc-sections --specs=nano.specs --specs=nosys.specs)

# name | app source | feature flags | port dir | extra port sources | flash limit | flash goal (bytes)
# (zenoh-pico 1.9.0's share of the same apps, linked the same way: 26815 and 35001 bytes)
apps=(
    "pub|tools/sizes/app_pub.c|-DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_PUBLICATION=1 -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_QUERY=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_MATCHING=0 -DZ_FEATURE_LIVELINESS=0|port/baremetal|tools/sizes/board_stub.c|10240|10240"
    "pubsub|tools/sizes/app_pubsub.c|-DZ_FEATURE_MULTI_THREAD=1 -DZ_FEATURE_PUBLICATION=1 -DZ_FEATURE_SUBSCRIPTION=1 -DZ_FEATURE_QUERY=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_MATCHING=0 -DZ_FEATURE_LIVELINESS=0|tools/sizes/rtos||18432|20480"
    "full|tools/sizes/app_full.c|-DZ_FEATURE_MULTI_THREAD=1 -DZ_FEATURE_PUBLICATION=1 -DZ_FEATURE_SUBSCRIPTION=1 -DZ_FEATURE_QUERY=1 -DZ_FEATURE_QUERYABLE=1 -DZ_FEATURE_LOCAL_QUERYABLE=0 -DZ_FEATURE_MATCHING=0 -DZ_FEATURE_LIVELINESS=1|tools/sizes/rtos||27648|33792"
)

rm -rf "$out"
status=0
report=()
for spec in "${apps[@]}"; do
    IFS='|' read -r name app features port extra limit goal <<<"$spec"
    # shellcheck disable=SC2206
    feat=($features)
    dir=$out/$name
    mkdir -p "$dir/lib"
    mapfile -t lib_sources < <(find src "$port" -name '*.c' | sort)
    objs=()
    for src in "${lib_sources[@]}"; do
        obj=$dir/lib/$(echo "$src" | tr '/' '_' | sed 's/\.c$/.o/')
        "$cc" "${cflags[@]}" "${feat[@]}" "-I$port" -c "$src" -o "$obj" &
        objs+=("$obj")
    done
    wait
    arm-none-eabi-ar rcs "$dir/libzmote.a" "${objs[@]}"
    app_objs=()
    for src in $app $extra; do
        obj=$dir/$(basename "$src" .c).o
        "$cc" "${cflags[@]}" "${feat[@]}" "-I$port" -c "$src" -o "$obj"
        app_objs+=("$obj")
    done
    "$cc" "${ldflags[@]}" -Wl,-Map="$dir/app.map" "${app_objs[@]}" "$dir/libzmote.a" -o "$dir/app.elf"
    read -r _ text rodata data bss < <(scripts/map-share.py "$dir/app.map" | sed -n 1p)
    flash=$((text + rodata + data))
    verdict=ok
    if [ "$flash" -gt "$limit" ]; then
        verdict="OVER THE LIMIT"
        status=1
    fi
    report+=("$(printf '%-8s %7d %7d %7d %7d %8d %8d %8d  %s' "$name" "$text" "$rodata" "$data" "$bss" "$flash" \
        "$limit" "$goal" "$verdict")")
done
echo "sizes: the library's share of each app linked for Cortex-M4 -Os (bytes)"
printf '%-8s %7s %7s %7s %7s %8s %8s %8s\n' app text rodata data bss flash limit goal
printf '%s\n' "${report[@]}"
exit $status
