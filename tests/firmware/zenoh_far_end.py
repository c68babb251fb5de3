"""A Rust Zenoh node (the eclipse-zenoh binding) at the far end of the firmware's serial link:
a client of the router given on the command line that prints every sample on KEY the way
zm_probe does ("sample sub=0 n=N key=K kind=put len=L head=HEX") and greets the MCU on GREET
every 100 ms ("[   n] Pub from Rust host!"). "ready" once both are declared.

usage: zenoh_far_end.py ROUTER_ENDPOINT KEY GREET
"""
import json
import sys
import threading

import zenoh


def main():
    endpoint, key, greet = sys.argv[1:4]
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("client"))
    conf.insert_json5("connect/endpoints", json.dumps([endpoint]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    lock = threading.Lock()
    count = [0]

    def on_sample(sample):
        payload = sample.payload.to_bytes()
        with lock:
            n = count[0]
            count[0] += 1
            print(f"sample sub=0 n={n} key={sample.key_expr} kind=put len={len(payload)} "
                  f"head={payload[:32].hex()}", flush=True)

    with zenoh.open(conf) as session:
        session.declare_subscriber(key, on_sample)
        pub = session.declare_publisher(greet)
        print("ready", flush=True)
        stop = threading.Event()
        n = 0
        while not stop.wait(0.1):
            pub.put("[%4d] Pub from Rust host!" % n)
            n += 1


if __name__ == "__main__":
    main()
