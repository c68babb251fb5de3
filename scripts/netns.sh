#!/usr/bin/env bash
# Runs a command inside a network namespace of its own, with only a loopback interface that
# carries multicast: lo up, multicast on, 224.0.0.0/4 routed to it. Every test that sends
# multicast (scouting, multicast transports) runs this way, with all its processes inside, so
# that no datagram can leave the machine. The command sees ZM_NETNS=1; tests that send multicast
# refuse to run without it. Fails loudly if the namespace cannot be made (it needs root or user
# namespaces); it never falls back to the host's interfaces.
#
# usage: scripts/netns.sh COMMAND [ARG...]
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
if [[ ${ZM_NETNS_INSIDE:-} != 1 ]]; then
    command -v unshare >/dev/null || { echo "netns: unshare is missing (util-linux)" >&2; exit 2; }
    command -v ip >/dev/null || { echo "netns: ip is missing (iproute2)" >&2; exit 2; }
    # unshare reports its own failure (e.g. no permission) and exits non-zero
    ZM_NETNS_INSIDE=1 exec unshare -n -- "$0" "$@"
fi
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo
# Nothing but lo may exist here: a namespace that sees another interface is not the one we made.
if ip -o link show | grep -v ': lo:' | grep -q .; then
    echo "netns: unexpected interfaces in the namespace" >&2
    exit 2
fi
export ZM_NETNS=1
exec "$@"
