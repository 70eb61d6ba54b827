#!/usr/bin/env python3
"""Puts a forced-variant run into the time model's frame, shape by shape.

A new variant's row must rank against rows fitted on another machine or day (clocks, memory,
H100 vs H200). Each shape of the run has the dispatcher's row first (`gpuops perf --op
'dense|dense\\.wgmma_...'`): its pick and the pick's time in this run. The model's prediction for
that pick (the rows in ops/dense/dense_time_model.cc, read from the source) over the measured
time scales every forced time of the shape. Shapes whose pick the model here cannot predict
(the _tail variants, whose split count the dispatcher chose) are left out; so are shapes whose
pick is one of the forced variants. Prints the factors' spread; writes the calibrated CSV, which
fit_dense_time_model.py then fits (bench/NOTES.md, sessions 23 and 28).

Usage: calibrate_forced_run.py RUN.csv OUT.csv [--sms 132] [--model ops/dense/dense_time_model.cc]
"""
import argparse
import collections
import csv
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_dense_time_model as fit  # noqa: E402  (TILES, splits, features, camel)


def read_model(path):
    """{variant name: (fill_share, coefficients)} and {ping-pong name: (tile, loss, hidden)}."""
    text = open(path).read()
    names = {fit.camel(v): v for v in list(fit.TILES) + list(fit.PINGPONG)}
    rows, pingpong = {}, {}
    for m in re.finditer(r"\{Variant::k(\w+), ([0-9.]+), ([0-9.e-]+), ([0-9.e-]+), ([0-9.e-]+), "
                         r"([0-9.e-]+), ([0-9.e-]+)", text):
        if m.group(1) in names:
            rows[names[m.group(1)]] = (float(m.group(2)), [float(m.group(i)) for i in range(3, 8)])
    for m in re.finditer(r"\{Variant::k(\w+PingPong), Variant::k(\w+), ([0-9.]+), ([0-9.]+)\}", text):
        if m.group(1) in names and m.group(2) in names:
            pingpong[names[m.group(1)]] = (names[m.group(2)], float(m.group(3)), float(m.group(4)))
    return rows, pingpong


def read_run(path):
    """A forced run of `gpuops perf --op 'dense|dense\\.<variants>'`, each shape's dispatcher
    row first: {(m, n, k): (pick, pick micros)} and {(m, n, k): {forced variant: micros}}."""
    picks, forced = {}, collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        key = (int(r["m"]), int(r["n"]), int(r["k"]))
        if key not in picks:
            picks[key] = (r["variant"], float(r["ours_us"]) if r["ours_us"] not in ("", "-")
                          else None)
        elif r["ours_us"] not in ("", "-"):
            forced[key][r["variant"]] = float(r["ours_us"])
    return picks, forced


def predict(variant, m, n, k, rows, pingpong, sms):
    if variant in pingpong:
        tile, loss, hidden = pingpong[variant]
        base = predict(tile, m, n, k, rows, pingpong, sms)
        if base is None:
            return None
        tm, tn = fit.TILES[tile]
        waves = fit.ceil_div(fit.ceil_div(m, tm) * fit.ceil_div(n, tn), sms)
        return base / (1 - loss) if waves <= 1 else base - hidden * (waves - 1)
    if variant not in rows:
        return None
    fill_share, coef = rows[variant]
    return sum(c * f for c, f in zip(coef, fit.features(variant, m, n, k, fill_share, sms)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("out")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(__file__), "..", "..", "ops",
                                                    "dense", "dense_time_model.cc"))
    args = ap.parse_args()
    rows, pingpong = read_model(args.model)
    run = list(csv.DictReader(open(args.run)))
    picks, factors, kept, skipped = {}, {}, [], 0
    for r in run:
        key = (int(r["m"]), int(r["n"]), int(r["k"]))
        if key in picks:
            continue
        picks[key] = r["variant"]
        p = predict(r["variant"], *key, rows, pingpong, args.sms)
        if p is None or r["ours_us"] in ("", "-"):
            skipped += 1
            continue
        factors[key] = p / float(r["ours_us"])
    seen = set()
    for r in run:
        key = (int(r["m"]), int(r["n"]), int(r["k"]))
        if key not in factors:
            continue
        first = key not in seen
        seen.add(key)
        if not first and r["variant"] == picks[key]:
            continue  # a forced row of the pick itself: the factor makes it the prediction
        out = dict(r)
        out["ours_us"] = f"{float(r['ours_us']) * factors[key]:.3f}"
        kept.append(out)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=run[0].keys())
        w.writeheader()
        w.writerows(kept)
    logs = sorted(math.log(x) for x in factors.values())
    gm = math.exp(sum(logs) / len(logs))
    print(f"{len(factors)} shapes calibrated, {skipped} left out (pick not predictable here); "
          f"factor geomean {gm:.4f}, 10/50/90 % {math.exp(logs[len(logs) // 10]):.3f} / "
          f"{math.exp(logs[len(logs) // 2]):.3f} / {math.exp(logs[9 * len(logs) // 10]):.3f}")


if __name__ == "__main__":
    main()
