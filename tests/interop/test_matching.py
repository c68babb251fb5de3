"""Matching status of zmote publishers and queriers against Rust Zenoh 1.10.2: z_pub -a says when
a first subscriber matches its key and when the last one goes, whether the subscriber is a Rust
client behind the router or a Rust peer, and whether it leaves by undeclaring or by closing; a
querier's listener follows Rust queryables (complete ones only for target ALL_COMPLETE), and a
storm of a peer's wildcard queryables costs each declaration our queriers, not every peer's
queryables."""
import time

import pytest

import harness
from harness import endpoint, free_port

MATCH = r"^Publisher has matching subscribers\.$"
NO_MORE = r"^Publisher has NO MORE matching subscribers\.$"


def z_pub(children, *args):
    pub = children.zm("z_pub", "-a", "-n", "1000", *args)
    pub.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    return pub


def flips(pub, rust_session, key, leave, round_=1):
    """A subscriber on key makes the round_-th "matching" line, its leave the round_-th "NO MORE"."""
    sub = rust_session.declare_subscriber(key, lambda s: None)
    pub.wait_lines(MATCH, round_)
    assert len(pub.matches(NO_MORE)) == round_ - 1
    leave(sub)
    pub.wait_lines(NO_MORE, round_)


def test_matching_through_the_router(router, rust, children):
    pub = z_pub(children, "-m", "client", "-e", router.endpoint)
    s = rust.client(router.endpoint)
    flips(pub, s, "demo/example/**", lambda sub: sub.undeclare())
    # again, and a subscriber on another key changes nothing
    other = s.declare_subscriber("other/**", lambda x: None)
    flips(pub, s, "demo/**", lambda sub: sub.undeclare(), round_=2)
    other.undeclare()
    assert len(pub.matches(MATCH)) == 2 and len(pub.matches(NO_MORE)) == 2


def test_matching_ends_when_the_subscriber_session_closes(router, rust, children):
    pub = z_pub(children, "-m", "client", "-e", router.endpoint)
    s = rust.client(router.endpoint)
    flips(pub, s, "demo/example/zenoh-pico-pub", lambda sub: s.close())


def test_matching_between_peers(rust, children):
    port = free_port()
    pub = z_pub(children, "-m", "peer", "-l", endpoint(port))
    s = rust.peer(connect=[endpoint(port)])
    flips(pub, s, "demo/example/**", lambda sub: sub.undeclare())


def test_matching_between_peers_ends_when_the_peer_leaves(rust, children):
    port = free_port()
    pub = z_pub(children, "-m", "peer", "-l", endpoint(port))
    s = rust.peer(connect=[endpoint(port)])
    flips(pub, s, "demo/**", lambda sub: s.close())


# ---- queriers ----------------------------------------------------------------------------------


def querier(children, *args):
    q = children.zm("zm_query", "querier", "-k", "zm/qm/a", *args)
    q.wait_line("^ready$")
    return q


@pytest.mark.parametrize("mode", ["client", "peer"])
def test_querier_matching_flips_with_a_rust_queryable(router, rust, children, mode):
    if mode == "client":
        q = querier(children, "-m", "client", "-e", router.endpoint)
        s = rust.client(router.endpoint)
    else:
        port = free_port()
        q = querier(children, "-m", "peer", "-l", endpoint(port))
        s = rust.peer(connect=[endpoint(port)])
    assert q.matches(r"^querier status 0$")
    qbl = s.declare_queryable("zm/qm/**", lambda query: None)
    q.wait_line(r"^querier matching 1$")
    qbl.undeclare()
    q.wait_line(r"^querier matching 0$")


def test_querier_matching_all_complete_counts_complete_queryables_only(router, rust, children):
    q = querier(children, "-m", "client", "-e", router.endpoint, "-T", "complete")
    s = rust.client(router.endpoint)
    partial = s.declare_queryable("zm/qm/a", lambda query: None, complete=False)
    complete = s.declare_queryable("zm/qm/**", lambda query: None, complete=True)
    q.wait_line(r"^querier matching 1$")
    complete.undeclare()
    q.wait_line(r"^querier matching 0$")
    partial.undeclare()



# A key of 40 chunks, against which each of the storm's queryables costs a match of its run of 28
# chunks at each chunk: tens of microseconds, times 200 queryables where every peer's are scanned.
LONG_KEY = "zm/qm/" + "a/" * 40 + "a"


@pytest.mark.serial
def test_querier_matching_through_a_storm_of_wildcard_queryables(rust, children):
    """A hostile peer declares 200 wildcard queryables that match nothing of ours, then declares
    them again in turn on new keys, 20,000 declarations in all, each a change our querier's
    matching looks at. Counted per declaration (a match against our querier, not against each of
    the peers' queryables), the storm is over within seconds, and a Rust peer that comes during
    it has its queryable seen at once."""
    port = free_port()
    q = children.zm("zm_query", "querier", "-k", LONG_KEY, "-m", "peer", "-l", endpoint(port), "-t", "200000")
    q.wait_line("^ready$")
    harness.wait_listening(port, 10, q)
    storm = children.zm("zm_attack", "-e", endpoint(port), "-t", "150000", "storm", "-Q", "-n", "20000")
    storm.wait_line(r"^storm start ", 20, [q])
    s = rust.peer(connect=[endpoint(port)])
    declared = time.monotonic()
    qbl = s.declare_queryable("zm/qm/**", lambda query: None)
    q.wait_line(r"^querier matching 1$", 60, [storm])
    flipped = time.monotonic() - declared
    m = storm.wait_line(r"^storm written=(\d+) .*close=(\w+) final=(\w+) elapsed=(-?\d+)$", 160, [q])
    written, close, final, elapsed = int(m.group(1)), m.group(2), m.group(3), int(m.group(4))
    print(f"queryable storm: written={written} close={close} final={final} elapsed={elapsed} ms; "
          f"the Rust queryable matched after {flipped * 1000:.0f} ms")
    assert written == 20000 and close == "none" and final == "yes", storm.describe()
    assert 0 <= elapsed <= 15000, f"the storm took {elapsed} ms\n{storm.describe()}"
    assert flipped <= 5.0, f"the Rust queryable matched only after {flipped:.1f} s"
    qbl.undeclare()
    q.wait_line(r"^querier matching 0$", 10, [storm])
    storm.send("stop")
    assert storm.wait_exit(15) == 0, storm.describe()
