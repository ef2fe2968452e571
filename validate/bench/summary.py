#!/usr/bin/env python3
"""The README's speed table from the current results: CUB's time over carry's for a few primitives at
2^20-2^28, each with the commit its CSV names. usage: summary.py [README.md] (rewrites the block between
the speed-table markers; ./build.sh plot runs it)."""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "..", "results")
PREFERRED = ["cold-blocked", "blocked", "events", "queued"]
SIZES = [20, 24, 26, 28]
# CUB's two paths of a call (its offset type 32 or 64 bits), as each CSV names them: the fastest counts
CUB_OFFSETS = ["cub-i32", "cub-i64"]
CUB_SORTS = ["cub (int n)", "cub (int64 n)"]
# (label, type shown, csv, op, type in the csv, carry's impl, CUB's impls: the fastest of them counts)
ROWS = [
    ("inclusive_sum", "u32", "scan", "inclusive_sum", "u32", "carry-auto", ["cub"]),
    ("inclusive_sum", "u8", "scan", "inclusive_sum", "u8", "carry-auto", ["cub"]),
    ("exclusive_sum", "f32", "scan", "exclusive_sum", "f32", "carry-auto", ["cub"]),
    ("exclusive_sum of u8 flags", "u8 → u32", "scan_iterators", "exclusive_sum_u8_to_u32", "u8/u32", "carry",
     ["cub"]),
    ("inclusive_sum of a transform iterator", "→ u32", "scan_iterators", "inclusive_sum_transform", "idx/u32",
     "carry", ["cub"]),
    ("select_if, 50 % selected", "u32", "compact", "select_if_50", "u32", "carry", CUB_OFFSETS),
    ("select_flagged, 50 %", "u32", "compact", "select_flagged_50", "u32", "carry", CUB_OFFSETS),
    ("partition, 50 % (stable)", "u32", "compact", "partition_50", "u32", "carry", CUB_OFFSETS),
    ("partition, 50 % (CUB's layout)", "u32", "compact", "partition_50", "u32", "carry-reversed",
     CUB_OFFSETS),
    ("partition_flagged, u8 flags, 50 % (stable)", "u32", "compact", "partition_u8flags_50", "u32", "carry",
     CUB_OFFSETS),
    ("select_flagged of indices, i32 flags, 50 %", "u32", "compact", "iota_flagged_i32_50", "u32", "carry",
     CUB_OFFSETS),
    ("select_flagged of indices, u32 flags, 99 %", "u32", "compact", "iota_flagged_u32_99", "u32", "carry",
     CUB_OFFSETS),
    ("select_if of indices, 50 %", "u32", "compact", "iota_if_50", "u32", "carry", CUB_OFFSETS),
    ("select_if of indices, 99 %", "u32", "compact", "iota_if_99", "u32", "carry", CUB_OFFSETS),
    ("partition of indices, 50 % (stable)", "u32", "compact", "iota_partition_50", "u32", "carry",
     CUB_OFFSETS),
    ("partition of indices, 50 % (CUB's layout)", "u32", "compact", "iota_partition_50", "u32", "carry-reversed",
     CUB_OFFSETS),
    ("partition_flagged of indices, u32 flags, 50 % (stable)", "u32", "compact", "iota_partition_u32_50", "u32",
     "carry", CUB_OFFSETS),
    ("inclusive_sum_by_key, runs of 8", "u32/u32", "keyed", "inclusive_sum_by_key_run8", "u32", "carry", ["cub"]),
    ("inclusive_sum_by_key, deterministic", "u32/f32", "keyed", "inclusive_sum_by_key_f32_det_run8", "u32", "carry",
     ["cub"]),
    ("reduce_by_key, runs of 4", "u32/u32", "keyed", "reduce_by_key_run4", "u32", "carry", ["cub"]),
    ("run_length_encode, runs of 4", "u32", "keyed", "run_length_encode_run4", "u32", "carry", ["cub"]),
    ("histogram_even, 256 bins", "u32", "apps", "histogram_even_256", "u32", "carry", ["cub"]),
    ("bin_by_key, 256 bins", "u32/u32", "apps", "bin_by_key_256_pairs", "u32", "carry", CUB_OFFSETS),
    ("allocate_slots", "u32 → u64", "apps", "allocate_slots_u32_u64", "u32", "carry", CUB_OFFSETS),
    ("sort_keys", "u32", "radix", "keys", "u32", "carry", CUB_SORTS),
    ("sort_keys", "u64", "radix", "keys", "u64", "carry", CUB_SORTS),
    ("sort_pairs", "u32/u32", "radix", "pairs", "u32/u32", "carry", CUB_SORTS),
]


def load(name):
    path = os.path.join(RESULTS, name + ".csv")
    commit = "?"
    rows = []
    with open(path, newline="") as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                m = re.search(r"carry commit (\S+)", line)
                commit = m.group(1) if m else commit
            else:
                lines.append(line)
        rows = list(csv.DictReader(lines))
    return commit, rows


def main():
    readme = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "README.md")
    cache = {}
    gpu = None
    out = ["| primitive | type | " + " | ".join(f"2^{s}" for s in SIZES) + " | commit |",
           "|---|---|" + "---|" * len(SIZES) + "---|"]
    for label, shown, name, op, typ, impl, cubs in ROWS:
        if name not in cache:
            cache[name] = load(name)
        commit, rows = cache[name]
        sel = [r for r in rows if r["op"] == op and r["type"] == typ]
        cells = []
        for size in SIZES:
            n = str(1 << size)
            cell = "—"
            for method in PREFERRED: # the first timing method that has both carry and CUB at this size
                t = {r["impl"]: float(r["median_us"]) for r in sel if r["n"] == n and r["method"] == method}
                c = [t[k] for k in cubs if k in t]
                if impl in t and c:
                    cell = f"{min(c) / t[impl]:.2f}×"
                    break
            cells.append(cell)
        out.append(f"| {label} | {shown} | " + " | ".join(cells) + f" | {commit} |")
    table = "\n".join(out)
    text = open(readme).read()
    new = re.sub(r"(<!-- speed-table[^\n]*-->\n).*?(<!-- end speed-table -->)", lambda m: m.group(1) + table + "\n" + m.group(2),
                 text, flags=re.S)
    if new == text and table not in text:
        sys.exit("summary.py: no speed-table markers in " + readme)
    open(readme, "w").write(new)
    print(table)


if __name__ == "__main__":
    main()
