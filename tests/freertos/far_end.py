"""A Rust Zenoh node (the eclipse-zenoh binding) that talks to the FreeRTOS firmware through a
router: a client of ROUTER_ENDPOINT that prints what it hears from the firmware and answers it.

  - every sample on demo/example/zmote-mcu: "sample n=N key=K payload=P"
  - the firmware's liveliness token: "token put K" / "token delete K"
  - a queryable on demo/example/zmote-host/q, which answers "reply from Rust host": "query K"
  - a get on demo/example/zmote-mcu/q once the firmware's first sample came, until answered:
    "reply key=K payload=P"
  - greets the firmware on demo/example/zmote-host/greeting every 100 ms

"ready" once all of it is declared. Runs until killed.
usage: far_end.py ROUTER_ENDPOINT
"""
import json
import sys
import threading

import zenoh

MCU_KEY = "demo/example/zmote-mcu"
_out = threading.Lock()


def say(line):
    """Prints one whole line: the callbacks run on several threads."""
    with _out:
        print(line, flush=True)


def main():
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("client"))
    conf.insert_json5("connect/endpoints", json.dumps([sys.argv[1]]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    count = [0]
    first = threading.Event()
    lock = threading.Lock()

    def on_sample(sample):
        with lock:
            n = count[0]
            count[0] += 1
        say(f"sample n={n} key={sample.key_expr} payload={sample.payload.to_string()}")
        first.set()

    def on_token(sample):
        kind = "put" if sample.kind == zenoh.SampleKind.PUT else "delete"
        say(f"token {kind} {sample.key_expr}")

    def on_query(query):
        say(f"query {query.key_expr}")
        query.reply(query.key_expr, "reply from Rust host")

    with zenoh.open(conf) as session:
        session.declare_subscriber(MCU_KEY, on_sample)
        session.liveliness().declare_subscriber(MCU_KEY + "/**", on_token, history=True)
        session.declare_queryable("demo/example/zmote-host/q", on_query)
        pub = session.declare_publisher("demo/example/zmote-host/greeting")
        say("ready")
        stop = threading.Event()

        def get_until_answered():
            first.wait()
            while not stop.is_set():
                for reply in session.get(MCU_KEY + "/q", timeout=5.0):
                    if reply.ok is not None:
                        say(f"reply key={reply.ok.key_expr} payload={reply.ok.payload.to_string()}")
                        return
                stop.wait(0.5)

        threading.Thread(target=get_until_answered, daemon=True).start()
        n = 0
        while not stop.wait(0.1):
            pub.put("[%4d] Pub from Rust host!" % n)
            n += 1


if __name__ == "__main__":
    main()
