#!/usr/bin/env python3
"""The far end of zmote-hello's run against a router: a Rust Zenoh client (the eclipse-zenoh
binding) of the router at ENDPOINT, subscribed to demo/zmote/**. Prints "ready" once declared,
then each sample as "rust got '<key>': '<value>'"; exits 0 after the first, 1 if none comes
within the timeout.

usage: subscriber.py ENDPOINT [--timeout S]
"""
import argparse
import json
import sys
import threading

import zenoh


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("endpoint")
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()

    conf = {
        "mode": "client",
        "connect": {"endpoints": [args.endpoint]},
        "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
    }
    got = threading.Event()

    def on_sample(sample):
        print(f"rust got '{sample.key_expr}': '{sample.payload.to_string()}'", flush=True)
        got.set()

    session = zenoh.open(zenoh.Config.from_json5(json.dumps(conf)))
    session.declare_subscriber("demo/zmote/**", on_sample)
    print("ready", flush=True)
    received = got.wait(args.timeout)
    session.close()
    return 0 if received else 1


if __name__ == "__main__":
    sys.exit(main())
