#!/usr/bin/env python3
"""Draws the tables of `bench/run.sh thr` and `bench/run.sh lat` (as they print them) into one PNG, and the
same figure as an SVG beside it (OUT with .svg for .png; its text kept as text, so that it can be
read and diffed): throughput (msg/s, median of the subscriber's windows) and round trip (median, and p99 dashed)
against payload size, one line per side. Called by `bench/run.sh plot`; needs matplotlib.

usage: plot.py THR_TABLE LAT_TABLE OUT.png [A_NAME] [B_NAME]
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display: a file only
matplotlib.rcParams["svg.fonttype"] = "none"  # text as <text>, not as paths
matplotlib.rcParams["svg.hashsalt"] = "zmote"  # the same figures give the same file
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def rows(path, columns):
    """{side: [(size, {column: value})]} from a table's figure lines ("SIZE SIDE ..."), skipping
    the B/A lines and figures that are missing ("-")."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = line.split()
            if len(cells) < 2 or not cells[0].isdigit() or cells[1] not in ("A", "B"):
                continue
            figures = {}
            for name, index in columns.items():
                if index < len(cells) and cells[index] != "-":
                    figures[name] = float(cells[index])
            out.setdefault(cells[1], []).append((int(cells[0]), figures))
    return out


def main():
    if len(sys.argv) not in (4, 5, 6):
        sys.exit(__doc__.strip().splitlines()[-1])
    thr_path, lat_path, png = sys.argv[1:4]
    names = {"A": sys.argv[4] if len(sys.argv) > 4 else "A",
             "B": sys.argv[5] if len(sys.argv) > 5 else "B"}
    colors = {"A": "tab:orange", "B": "tab:blue"}
    thr = rows(thr_path, {"msgs": 2})
    lat = rows(lat_path, {"median": 3, "p99": 4})
    if not thr and not lat:
        sys.exit("plot.py: no figures in %s nor %s" % (thr_path, lat_path))

    fig, (ax_thr, ax_lat) = plt.subplots(1, 2, figsize=(11, 4.2))
    for side in ("A", "B"):
        points = [(s, f["msgs"]) for s, f in thr.get(side, []) if "msgs" in f]
        if points:
            ax_thr.plot(*zip(*points), "o-", color=colors[side], label=names[side])
        med = [(s, f["median"]) for s, f in lat.get(side, []) if "median" in f]
        p99 = [(s, f["p99"]) for s, f in lat.get(side, []) if "p99" in f]
        if med:
            ax_lat.plot(*zip(*med), "o-", color=colors[side], label=names[side] + " median")
        if p99:
            ax_lat.plot(*zip(*p99), "s--", color=colors[side], alpha=0.6, label=names[side] + " p99")
    ax_thr.set(xscale="log", yscale="log", xlabel="payload (bytes)", ylabel="messages/s (median)",
               title="Throughput")
    ax_lat.set(xscale="log", yscale="log", xlabel="payload (bytes)", ylabel="round trip (µs)",
               title="Round trip (z_ping / z_pong)")
    for ax in (ax_thr, ax_lat):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    fig.savefig(png.rsplit(".", 1)[0] + ".svg", metadata={"Date": None})


if __name__ == "__main__":
    main()
