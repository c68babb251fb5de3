"""zmote's advanced subscriber (zmote/api/advanced.h) against Rust Zenoh 1.10.2's advanced publisher
(zenoh.ext), and zmote's advanced publisher losing samples against both subscribers, through a
Rust router: a subscriber that joins late gets the cache then the live samples, in order; a
loss is reported with its count, or recovered from the cache; a publisher that appears after the
subscriber is found by its token and its history asked. zmote's sides are tests/interop/zm_advsub
(prints what it delivers) and tests/interop/zm_adv (stdin commands; `skip N` puts N samples that
only its cache sees, the loss). Every wait is for an event, bounded."""
import threading

import pytest
import zenoh
import zenoh.ext

import harness

PUT = zenoh.SampleKind.PUT


def subscriber(children, router, key, *args):
    p = children.zm("zm_advsub", "-m", "client", "-e", router.endpoint, "-k", key, "-d", *args)
    line = p.wait_line(r"^(ready|no advanced subscribers in this build)$")
    if line.group(1) != "ready":
        pytest.skip("this build has no advanced subscribers")
    return p


def wait_token(session, pattern, others=()):
    """Waits until the router knows a liveliness token on pattern (and so what was declared before it)."""
    harness.wait_until(lambda: any(r.ok is not None for r in session.liveliness().get(pattern, timeout=5)),
                       20, f"a token on {pattern} at the router", others)


def publisher(children, router, key, *args):
    p = children.zm("zm_adv", "-m", "client", "-e", router.endpoint, "-k", key, *args)
    line = p.wait_line(r"^(ready|no advanced publishers in this build)$")
    if line.group(1) != "ready":
        pytest.skip("this build has no advanced publishers")
    return p


def run(p, command, done):
    p.send(command)
    p.wait_line(rf"^{done}$")


def ends_clean(p):
    """zm_advsub undeclares and closes at the end of its stdin, and says so (an ASan build checks what it freed)."""
    p.close_stdin()
    assert p.wait_exit() == 0, p.describe()


def lines(p):
    """What zm_advsub printed of its samples and misses, in order."""
    return [m.string for m in p.matches(r"^(sample|miss) ")]


def samples(key, numbers):
    return [f"sample put {key} #{i}" for i in numbers]


def test_late_subscriber_gets_the_python_cache_then_live_samples(router, rust, children):
    key = "zm/advsub/late"
    s = rust.client(router.endpoint)
    pub = zenoh.ext.declare_advanced_publisher(s, key, cache=zenoh.ext.CacheConfig(max_samples=10),
                                               sample_miss_detection=zenoh.ext.MissDetectionConfig(),
                                               publisher_detection=True)
    for i in range(15):  # the cache keeps #5..#14
        pub.put(f"{key} #{i}")
    harness.router_took(s)  # the puts passed, before our subscriber is there to be given #0..#4 live
    sub = subscriber(children, router, key, "-H", "10", "-L", "-r")
    sub.wait_lines(r"^sample ", 10)
    wait_token(s, key + "/@adv/sub/**", [sub])  # its subscriber is known: live samples reach it
    for i in range(15, 18):
        pub.put(f"{key} #{i}")
    sub.wait_lines(r"^sample ", 13)
    assert lines(sub) == samples(key, range(5, 18)), sub.describe()
    pub.undeclare()
    ends_clean(sub)


@pytest.mark.parametrize("recovery", [False, True])
def test_a_loss_is_reported_or_recovered(router, rust, children, recovery):
    key = f"zm/advsub/loss{int(recovery)}"
    s = rust.client(router.endpoint)
    sub = subscriber(children, router, key, *(["-r"] if recovery else []))
    wait_token(s, key + "/@adv/sub/**", [sub])
    p = publisher(children, router, key, "-c", "10", "-s", "-d")
    run(p, "put 2", "put 2")
    sub.wait_lines(r"^sample ", 2, others=[p])
    run(p, "skip 3", "skipped 3")  # #2..#4 in its cache alone
    run(p, "put 2", "put 2")
    if recovery:  # #5 shows the gap, the cache fills it
        sub.wait_lines(r"^sample ", 7, others=[p])
        assert lines(sub) == samples(key, range(0, 7)), sub.describe()
        ends_clean(sub)
    else:
        sub.wait_lines(r"^sample ", 4, others=[p])
        assert lines(sub) == samples(key, [0, 1]) + ["miss 3"] + samples(key, [5, 6]), sub.describe()
    ends_clean(sub)  # held samples, if any, freed


def test_recovery_reports_what_the_cache_no_longer_has(router, rust, children):
    key = "zm/advsub/gone"
    s = rust.client(router.endpoint)
    sub = subscriber(children, router, key, "-r")
    wait_token(s, key + "/@adv/sub/**", [sub])
    p = publisher(children, router, key, "-c", "2", "-s", "-d")
    run(p, "put 2", "put 2")
    sub.wait_lines(r"^sample ", 2, others=[p])
    run(p, "skip 5", "skipped 5")  # #2..#6; the cache keeps the last two
    run(p, "put 1", "put 1")  # #7: the cache has #6, #7
    sub.wait_lines(r"^sample ", 4, others=[p])
    assert lines(sub) == samples(key, [0, 1]) + ["miss 4"] + samples(key, [6, 7]), sub.describe()
    ends_clean(sub)


def test_a_late_publisher_is_detected_and_its_history_asked(router, rust, children):
    key = "zm/advsub/detect"
    sub = subscriber(children, router, key, "-H", "0", "-L", "-r")
    s = rust.client(router.endpoint)
    wait_token(s, key + "/@adv/sub/**", [sub])
    # a publisher whose samples reach its cache alone; its token comes once they are there
    pub = zenoh.ext.declare_advanced_publisher(s, key, cache=zenoh.ext.CacheConfig(max_samples=10),
                                               sample_miss_detection=zenoh.ext.MissDetectionConfig(),
                                               allowed_destination=zenoh.Locality.SESSION_LOCAL)
    for i in range(4):
        pub.put(f"{key} #{i}")
    token = s.liveliness().declare_token(f"{key}/@adv/pub/{pub.id.zid}/{pub.id.eid}/_")
    sub.wait_lines(r"^sample ", 4)
    assert lines(sub) == samples(key, range(0, 4)), sub.describe()
    ends_clean(sub)
    token.undeclare()
    pub.undeclare()


@pytest.mark.parametrize("recovery", [False, True])
def test_python_subscriber_sees_a_zmote_publisher_loss(router, rust, children, recovery):
    key = f"zm/advsub/pyloss{int(recovery)}"
    s = rust.client(router.endpoint)
    got, misses = [], []
    cond = threading.Condition()

    def on_sample(sample):
        with cond:
            got.append(sample.payload.to_bytes().decode())
            cond.notify_all()

    def on_miss(miss):
        with cond:
            misses.append(miss.nb)
            cond.notify_all()

    p = publisher(children, router, key, "-c", "10", "-d", *(["-b", "200"] if recovery else ["-s"]))
    history = zenoh.ext.HistoryConfig(detect_late_publishers=True)
    sub = zenoh.ext.declare_advanced_subscriber(
        s, key, on_sample, history=history,
        recovery=zenoh.ext.RecoveryConfig(heartbeat=True) if recovery else None)
    listener = sub.sample_miss_listener(on_miss)
    # the publisher's history (none) asked and answered: then every put reaches it live
    harness.wait_until(lambda: any(r.ok is not None for r in s.liveliness().get(key + "/@adv/pub/**", timeout=5)),
                       20, "the publisher's token", others=[p])
    run(p, "put 2", "put 2")
    harness.wait_until(lambda: len(got) >= 2, 20, f"2 samples (got {got})", others=[p])
    run(p, "skip 3", "skipped 3")
    run(p, "put 2", "put 2")
    want = 7 if recovery else 4
    harness.wait_until(lambda: len(got) >= want, 20, f"{want} samples (got {got}, misses {misses})", others=[p])
    if recovery:
        assert got == [f"{key} #{i}" for i in range(7)] and misses == []
    else:
        assert got == [f"{key} #{i}" for i in (0, 1, 5, 6)] and misses == [3]
    listener.undeclare()
    sub.undeclare()


@pytest.mark.parametrize("how", ["heartbeat", "periodic"])
def test_a_lost_last_sample_is_recovered(router, rust, children, how):
    key = f"zm/advsub/last-{how}"
    s = rust.client(router.endpoint)
    sub = subscriber(children, router, key, *(["-b"] if how == "heartbeat" else ["-p", "300"]))
    wait_token(s, key + "/@adv/sub/**", [sub])
    p = publisher(children, router, key, "-c", "10", "-d", *(["-b", "200"] if how == "heartbeat" else ["-s"]))
    run(p, "put 2", "put 2")
    sub.wait_lines(r"^sample ", 2, others=[p])
    run(p, "skip 2", "skipped 2")  # nothing live follows: the heartbeat, or the next periodic query, tells
    sub.wait_lines(r"^sample ", 4, others=[p])
    assert lines(sub) == samples(key, range(0, 4)), sub.describe()
    ends_clean(sub)
