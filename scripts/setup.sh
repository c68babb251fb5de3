#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12, and nothing when it is already there,
# so a warm machine pays only a few dpkg queries. `build` is enough to build the library and
# zmote-dump; `all` adds g++ (the public headers built as C++), clang (fuzzing), the Cortex-M4
# cross compiler, QEMU for the firmware tests, socat (the serial interop tests join two
# pseudo-terminals with it), pkg-config (the install tests link a program with zmote.pc), doxygen
# (the tests build the API reference, warnings as errors), ccache (scripts/test.sh's many build
# trees compile the same files again and again), Mbed TLS and openssl (the TLS links of the tests'
# builds, and the certificates their tests make) and the Python venv (.venv) that the interop
# tests use: eclipse-zenoh, pytest and pytest-xdist (the suite runs on several workers), and
# matplotlib for the benchmark plot (bench/run.sh plot). Installing needs root; without it, a
# missing package is an error. While another apt or dpkg holds the package locks, it waits for
# them, at most five minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
build_pkgs=(cmake ninja-build gcc libc6-dev)
all_pkgs=("${build_pkgs[@]}" iproute2 util-linux g++ clang llvm libclang-rt-14-dev gcc-arm-none-eabi
          libnewlib-arm-none-eabi qemu-system-arm python3-venv socat pkg-config doxygen ccache libmbedtls-dev openssl)
case "$what" in
    build) pkgs=("${build_pkgs[@]}") ;;
    all) pkgs=("${all_pkgs[@]}") ;;
    *) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac

# The command each package provides, for machines where it came from elsewhere than dpkg.
declare -A cmd_of=([cmake]=cmake [ninja-build]=ninja [gcc]=gcc [g++]=g++ [clang]=clang [llvm]=llvm-size
                   [gcc-arm-none-eabi]=arm-none-eabi-gcc [qemu-system-arm]=qemu-system-arm
                   [socat]=socat [pkg-config]=pkg-config [doxygen]=doxygen [ccache]=ccache [openssl]=openssl)

have_pkg() {
    if dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; then
        return 0
    fi
    [ -n "${cmd_of[$1]:-}" ] && command -v "${cmd_of[$1]}" >/dev/null 2>&1
}

# apt-get, waiting up to lock_wait_s in all for another apt or dpkg (an unattended upgrade, a
# second setup) to let go of its locks rather than failing at once. dpkg's lock is awaited by apt
# itself (DPkg::Lock::Timeout); the package lists' lock of `apt-get update` is not, so a run that
# failed on a lock is tried again until the time is up. Output goes where the caller sends it;
# the waiting is told on stderr of the terminal (fd 3).
lock_wait_s=300
apt_get() {
    local deadline=$((SECONDS + lock_wait_s)) told=0 out rc
    out=$(mktemp /tmp/zmote-apt-run.XXXXXX)
    while true; do
        if pgrep -x 'apt|apt-get|aptitude|dpkg|unattended-upgr' >/dev/null 2>&1 && [ "$told" = 0 ]; then
            echo "setup: another apt or dpkg is running; waiting for it (at most ${lock_wait_s}s)" >&3
            told=1
        fi
        rc=0
        apt-get -o DPkg::Lock::Timeout=$((deadline > SECONDS ? deadline - SECONDS : 0)) "$@" >"$out" 2>&1 || rc=$?
        cat "$out"
        if [ "$rc" = 0 ] || ! grep -qiE 'could not get lock|unable to (lock|acquire)' "$out" ||
                [ "$SECONDS" -ge "$deadline" ]; then
            rm -f "$out"
            return "$rc"
        fi
        if [ "$told" = 0 ]; then
            echo "setup: apt's lock is held by another process; waiting for it (at most ${lock_wait_s}s)" >&3
            told=1
        fi
        sleep 5
    done
}

missing=()
for p in "${pkgs[@]}"; do
    have_pkg "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "error: missing packages: ${missing[*]}" >&2
        echo "       install them as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: missing packages: ${missing[*]}, and no apt-get to install them" >&2
        exit 1
    fi
    echo "setup: installing ${missing[*]}"
    log=$(mktemp /tmp/zmote-apt.XXXXXX)
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt_get update -q && apt_get install -y -q --no-install-recommends "${missing[@]}"; } \
            </dev/null 3>&2 >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "error: apt-get could not install: ${missing[*]} (full log: $log)" >&2
        exit 1
    fi
    rm -f "$log"
fi

[ "$what" = all ] || exit 0

# The interop tests drive the real Rust implementation through its Python binding; pytest-xdist
# spreads them over workers. A venv that has the first two but not xdist only gets xdist added.
zenoh_version=1.10.2
venv=.venv
venv_check() { # prints what the venv lacks: nothing, "xdist", or "all"
    if [ ! -x "$venv/bin/python" ]; then
        echo all
        return
    fi
    "$venv/bin/python" - "$zenoh_version" <<'EOF' 2>/dev/null || echo all
import sys
from importlib.metadata import version
import pytest, zenoh  # noqa: F401  (both must import, not only be listed)
if version("eclipse-zenoh") != sys.argv[1]:
    sys.exit(1)
try:
    import xdist  # noqa: F401
except ImportError:
    print("xdist")
EOF
}
pip_install() {
    local log
    log=$(mktemp /tmp/zmote-pip.XXXXXX)
    if ! "$venv/bin/pip" install -q --disable-pip-version-check "$@" </dev/null >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "error: pip could not install $* (log: $log)" >&2
        exit 1
    fi
    rm -f "$log"
}
case $(venv_check) in
    all)
        echo "setup: creating $venv with eclipse-zenoh==$zenoh_version, pytest and pytest-xdist"
        # The distribution's python is the one python3-venv completes; prefer it over any other.
        py=/usr/bin/python3
        [ -x "$py" ] || py=$(command -v python3)
        "$py" -m venv "$venv"
        pip_install "eclipse-zenoh==$zenoh_version" pytest pytest-xdist ;;
    xdist)
        echo "setup: adding pytest-xdist to $venv"
        pip_install pytest-xdist ;;
esac
[ -z "$(venv_check)" ] ||
    { echo "error: $venv still lacks eclipse-zenoh==$zenoh_version, pytest or pytest-xdist" >&2; exit 1; }
# bench/run.sh plot draws with matplotlib. Nothing else needs it, so a venv it cannot be added to
# (no network) is only a warning.
if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    echo "setup: adding matplotlib to $venv (bench/run.sh plot)"
    "$venv/bin/pip" install -q --disable-pip-version-check matplotlib </dev/null >/dev/null 2>&1 ||
        echo "warning: pip could not install matplotlib: bench/run.sh plot will not draw" >&2
fi

# Mbed TLS 3.6 (TLS 1.3, which mutual TLS with Rust Zenoh needs), built once into the cache: the
# ASan tree of scripts/test.sh links it; the other trees keep the system's 2.28.
scripts/build-mbedtls3.sh >/dev/null
