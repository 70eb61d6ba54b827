#!/usr/bin/env python3
"""A dispatcher change, shape by shape: its pick against the pick it replaces, timed in one run.

Input: a CSV of `gpuops perf --op 'dense|dense\\.<old picks>' --shapes none --shape ...` run with
the new dispatcher, and the old dispatcher's gpuops built for the mock (its `trace dense` names
the old pick of each shape, with no GPU). perf times a shape's ops one after another, seconds
apart; each pick is still compared through its ratio to cuBLAS in its own row (interleaved
samples), with the raw time ratio printed beside it.

Usage: compare_picks.py RUN.csv --old-mock OLD_GPUOPS
Prints per shape: new pick, old pick, their times and cuBLAS ratios, old/new (raw and
cuBLAS-normalised, above 1 the new pick is faster), then the geometric mean.
"""
import argparse
import collections
import csv
import math
import re
import subprocess


def old_pick(binary, m, n, k):
    out = subprocess.run([binary, "trace", "dense", "--m", str(m), "--n", str(n), "--k", str(k)],
                         capture_output=True, text=True, check=True).stdout
    found = re.search(r"-> variant ([A-Za-z0-9_]+)", out)
    return found.group(1) if found else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--old-mock", required=True)
    args = ap.parse_args()
    shapes = collections.OrderedDict()
    for r in csv.DictReader(open(args.run)):
        key = (int(r["m"]), int(r["n"]), int(r["k"]))
        rows = shapes.setdefault(key, {})
        name = "dense" if "dense" not in rows else r["variant"]
        if r["ours_us"] in ("", "-") or r["cublas_us"] in ("", "-"):
            continue
        rows[name] = (r["variant"], float(r["ours_us"]), float(r["cublas_us"]))
    logs = []
    for key, rows in shapes.items():
        old = old_pick(args.old_mock, *key)
        if "dense" not in rows or old not in rows:
            print(f"{key}: not both timed (old pick {old})")
            continue
        new, new_us, new_cublas = rows["dense"]
        _, old_us, old_cublas = rows[old]
        norm = (new_cublas / new_us) / (old_cublas / old_us)
        if new != old:
            logs.append(math.log(norm))
        print(f"{key[0]}x{key[1]}x{key[2]}: new {new} {new_us:.1f} us ({new_cublas / new_us:.3f}x "
              f"cuBLAS), old {old} {old_us:.1f} ({old_cublas / old_us:.3f}x); old/new raw "
              f"{old_us / new_us:.3f}, normalised {norm:.3f}")
    if logs:
        print(f"changed picks: {len(logs)}, geomean old/new (normalised) "
              f"{math.exp(sum(logs) / len(logs)):.4f}, min {math.exp(min(logs)):.3f}, "
              f"max {math.exp(max(logs)):.3f}")


if __name__ == "__main__":
    main()
