#!/usr/bin/env python3
"""Charts of carry's benchmark CSVs: throughput against n for carry, CUB and a device copy, one PNG per
primitive and type. usage: plot.py OUT_DIR CSV... (./build.sh plot runs it on validate/results/)."""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The timing method each CSV family is charted with: GPU time with a cold L2 where the CSV has it.
PREFERRED = ["cold-blocked", "blocked", "events", "queued"]


# Counting-iterator compactions: the tables hold every flag type and selectivity; two charts stand for them.
CHARTED_ITERATOR_OPS = {"iota_flagged_i32_50", "iota_if_50"}
# Rows kept to the tables (and the README's speed table): no chart of their own.
TABLE_ONLY_OPS = {"flagged_u32flags_50", "partition_u32flags_50", "exclusive_sum_u8_to_u32", "inclusive_sum_transform", "select_if_1",
                  "select_if_99", "histogram_even_256_onebin", "inclusive_max", "histogram_offsets_256",
                  "keys equal", "keys sorted", "keys two"}
# (op, type) pairs kept to the tables: the exclusive sums run as the inclusive ones (their charts stand)
TABLE_ONLY_SERIES = {("exclusive_sum", "u32"), ("exclusive_sum", "f32")}
# The keyed calls (keyed.csv): the tables hold every call and run length; one chart stands for them.
CHARTED_KEYED_OPS = {"reduce_by_key_run4"}


def impl_group(impl):
    if impl in ("carry", "carry-auto"):
        return "carry"
    if impl == "carry three_kernel":
        return "carry (three kernels)"
    if impl.startswith("cub"):
        return "CUB"
    if impl == "memcpy":
        return "copy"
    if impl == "read":
        return "read-only pass"
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    out_dir, paths = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    # (op, type) -> method -> group -> n -> best GB/s (CUB: the faster of its size paths)
    series = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    sources = defaultdict(set)
    units = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(line for line in f if not line.startswith("#")):
                # throughput: GB/s of the bytes moved, or (radix sort) G keys/s
                if "method" not in r or ("gbps" not in r and "gkeys" not in r):
                    continue
                group = impl_group(r["impl"])
                keyed = os.path.basename(path) == "keyed.csv"
                if (group is None or r["op"] in TABLE_ONLY_OPS or (r["op"], r["type"]) in TABLE_ONLY_SERIES
                        or (r["op"].startswith("iota_") and r["op"] not in CHARTED_ITERATOR_OPS)
                        or (keyed and r["op"] not in CHARTED_KEYED_OPS)):
                    continue
                unit = "GB/s (bytes the primitive must move)" if "gbps" in r else "G keys/s"
                key = (("sort " if unit == "G keys/s" else "") + r["op"], r["type"])
                units[key] = unit
                n, gbps = int(r["n"]), float(r["gbps"] if "gbps" in r else r["gkeys"])
                cell = series[key][r["method"]][group]
                cell[n] = max(cell.get(n, 0.0), gbps)
                sources[key].add(os.path.basename(path))
    written = []
    for (op, typ), methods in sorted(series.items()):
        method = next((m for m in PREFERRED if m in methods), None)
        # sizes charted with the method; small sizes may only exist as 'queued'
        if method is None:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for group, style in (("carry", "o-"), ("carry (three kernels)", "^-"), ("CUB", "s--"), ("copy", ":"),
                             ("read-only pass", "-.")):
            pts = sorted(methods[method].get(group, {}).items())
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=group)
        ax.set_xscale("log", base=2)
        if units[(op, typ)] == "G keys/s":
            ax.set_yscale("log")  # a key copy runs ~10x a sort: on a linear axis it flattens carry and CUB
        ax.set_xlabel("n (items)")
        ax.set_ylabel(units[(op, typ)])
        ax.set_title(f"{op}, {typ} ({method}; {', '.join(sorted(sources[(op, typ)]))})", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        name = os.path.join(out_dir, f"{op}-{typ}.png".replace(" ", "-").replace("/", "-"))
        fig.savefig(name, dpi=110)
        plt.close(fig)
        written.append(name)
    written += plot_dist(out_dir, [p for p in paths if os.path.basename(p) == "dist.csv"])
    for w in written:
        print(w)
    return 0


def plot_dist(out_dir, paths):
    """The distributed calls (dist.csv): speed-up over one GPU against GPUs, a line per call (and key
    distribution) and machine at its largest n."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows += list(csv.DictReader(line for line in f if not line.startswith("#")))
    if not rows:
        return []
    fig, ax = plt.subplots(figsize=(10, 5.2))
    gpus_seen = set()
    def kind(r):  # the machine without its commit: a line per call and machine
        return (r.get("machine") or "").split("@")[0]

    lines = sorted({(r["op"], kind(r)) for r in rows})
    palette = list(plt.get_cmap("tab20").colors) + list(plt.get_cmap("tab20b").colors)  # up to 40 lines
    for i, (op, where) in enumerate(lines):
        mine = [r for r in rows if r["op"] == op and kind(r) == where]
        most = max(int(r["n"]) for r in mine)
        pts = sorted((int(r["gpus"]), float(r["speedup"])) for r in mine if int(r["n"]) == most)
        gpus_seen.update(g for g, _ in pts)
        label = f"{op}, 2^{most.bit_length() - 1} u32" + (f" ({where})" if where else "")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-" if "H200" in where else "s--", label=label,
                color=palette[i % len(palette)])
    top = max(gpus_seen)
    ax.plot([1, top], [1, top], ":", color="grey", label="linear")
    ax.set_xticks(sorted(gpus_seen))
    ax.set_xlabel("GPUs (one process, a thread a rank)")
    ax.set_ylabel("speed-up over one GPU's carry")
    ax.set_title("carry::dist, strong scaling (dist.csv)", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the plot, not over it
    fig.tight_layout()
    name = os.path.join(out_dir, "dist-speedup.png")
    fig.savefig(name, dpi=110)
    plt.close(fig)
    return [name]


if __name__ == "__main__":
    sys.exit(main())
