#!/usr/bin/env python3
"""A Rust Zenoh router for the interop tests: eclipse-zenoh (the Python binding, which runs the
Rust 1.10.2 runtime) in router mode on its endpoints (one TCP endpoint, or a UDP one beside it),
with scouting off so that nothing but the tests' own nodes ever joins. It runs in its own process
so a test can kill or freeze it.

usage: router.py ENDPOINT [ENDPOINT...] [--lease-ms MS] [--scout-iface IFACE]
Prints "ready <zid>" once listening, then runs until SIGTERM, SIGINT or the end of its stdin.
--lease-ms sets the lease the router announces; a peer that honours it declares the router
lost after that much silence, which keeps the lease tests short. --scout-iface turns multicast
scouting on, on that interface (the scouting tests, inside their network namespace): the router
then answers SCOUTs on the default group.
"""
import argparse
import json
import signal
import sys
import threading

import zenoh


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("endpoint", nargs="+")
    parser.add_argument("--lease-ms", type=int)
    parser.add_argument("--scout-iface")
    args = parser.parse_args()

    conf = {
        "mode": "router",
        "listen": {"endpoints": args.endpoint},
        "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
    }
    if args.lease_ms:
        conf["transport"] = {"link": {"tx": {"lease": args.lease_ms}}}
    if args.scout_iface:
        conf["scouting"]["multicast"] = {"enabled": True, "interface": args.scout_iface}
    session = zenoh.open(zenoh.Config.from_json5(json.dumps(conf)))
    print(f"ready {session.zid()}", flush=True)

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())

    # The tests hold our stdin open; its end means they are gone, and so should we be.
    def watch_stdin():
        while sys.stdin.buffer.read(4096):
            pass
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    done.wait()
    session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
