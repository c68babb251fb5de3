#!/usr/bin/env bash
# The size table: apps written against zenoh-pico's API (tools/sizes/app_*.c), each linked for
# Cortex-M4 (-Os, function sections, --gc-sections, newlib-nano) with the library built in the
# configuration that app needs (tools/sizes/NAME.flags, every other feature off; the same file
# scripts/check-configs.sh builds the app with for the host, to run it against Rust Zenoh), and
# the library's share of the image by section kind, summed from the linker map over the objects of
# its archive. The single-thread app links with port/baremetal over a stub board; the threaded
# ones with the stand-in RTOS port of tools/sizes/rtos (port/baremetal has no threads). Each share
# of flash (text + rodata + data) has a goal, which fails the script when passed: the size the
# library is designed to, not the last figure reached, so that within it clearer code wins over
# bytes (zenoh-pico 1.9.0's share of the same apps is above it).
#
# usage: scripts/sizes.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/sizes}
cc=arm-none-eabi-gcc
for tool in $cc arm-none-eabi-ar python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done

# How a microcontroller build is compiled (a release: no asserts); what it has is the app's flags file.
cflags=(-mcpu=cortex-m4 -mthumb -Os -std=c11 -ffunction-sections -fdata-sections -Iinclude -Isrc
        -DZM_ASSERT_ENABLED=0)
ldflags=(-mcpu=cortex-m4 -mthumb -Wl,--gc-sections --specs=nano.specs --specs=nosys.specs)

# name (tools/sizes/app_NAME.c, tools/sizes/NAME.flags) | port dirs and files (the library's: each
# folder is also on the include path) | sources outside the library | flash goal (bytes)
# (zenoh-pico 1.9.0's share of the same apps, linked the same way: 26815 and 35001 bytes)
apps=(
    "pub|port/baremetal|tools/sizes/board_stub.c|10240"
    "pubsub|port/freertos port/baremetal/console.c port/baremetal/serial.c tests/freertos/standin|tools/sizes/freertos_stub.c|20480"
    "full|tools/sizes/rtos||33792"
)

rm -rf "$out"
status=0
report=()
for spec in "${apps[@]}"; do
    IFS='|' read -r name port extra goal <<<"$spec"
    app=tools/sizes/app_$name.c
    mapfile -t feat < <(grep -v '^#' "tools/sizes/$name.flags" | grep -v '^ *$')
    dir=$out/$name
    mkdir -p "$dir/lib"
    read -r -a port_paths <<<"$port"
    port_inc=()
    for p in "${port_paths[@]}"; do
        [ ! -d "$p" ] || port_inc+=("-I$p")
    done
    mapfile -t lib_sources < <(find src "${port_paths[@]}" -name '*.c' | sort)
    objs=()
    for src in "${lib_sources[@]}"; do
        obj=$dir/lib/$(echo "$src" | tr '/' '_' | sed 's/\.c$/.o/')
        "$cc" "${cflags[@]}" "${feat[@]}" "${port_inc[@]}" -c "$src" -o "$obj" &
        objs+=("$obj")
    done
    wait
    arm-none-eabi-ar rcs "$dir/libzmote.a" "${objs[@]}"
    app_objs=()
    for src in $app $extra; do
        obj=$dir/$(basename "$src" .c).o
        "$cc" "${cflags[@]}" "${feat[@]}" "${port_inc[@]}" -c "$src" -o "$obj"
        app_objs+=("$obj")
    done
    "$cc" "${ldflags[@]}" -Wl,-Map="$dir/app.map" "${app_objs[@]}" "$dir/libzmote.a" -o "$dir/app.elf"
    read -r _ text rodata data bss < <(scripts/map-share.py "$dir/app.map" | sed -n 1p)
    flash=$((text + rodata + data))
    verdict=ok
    if [ "$flash" -gt "$goal" ]; then
        verdict="OVER THE GOAL"
        status=1
    fi
    report+=("$(printf '%-8s %7d %7d %7d %7d %8d %8d  %s' "$name" "$text" "$rodata" "$data" "$bss" "$flash" \
        "$goal" "$verdict")")
done
echo "sizes: the library's share of each app linked for Cortex-M4 -Os (bytes)"
printf '%-8s %7s %7s %7s %7s %8s %8s\n' app text rodata data bss flash goal
printf '%s\n' "${report[@]}"
exit $status
