#!/usr/bin/env python3
"""Fits a tile's time-model row to its one-wave shapes only, and tests the pick it would make.

Input: runs of `gpuops perf --op 'dense|dense\\.wgmma_<T>' --shapes none --shape ...`, each
shape's dispatcher row first (its pick and time) and the forced tile after it. Each run's times
are scaled by one factor, the geomean over its shapes of the time model's prediction for the
pick (ops/dense/dense_time_model.cc) over the pick's measured time, so that a row fitted on
another card or day ranks against the model's (bench/NOTES.md, sessions 28 and 35). The row is
fitted (fit_dense_time_model.fit) to the shapes whose tiles make one wave and whose M lies in
[128, --max-m], with a last m-block of more than 64 rows. Then, with each (N, K) left out of the
fit in turn, the shapes where the row's prediction beats the pick's by --margin: the pick's
measured time over the tile's (above 1 the new pick is faster).

Usage: fit_one_wave_row.py RUN.csv [RUN.csv ...] --tile wgmma_128x112 --max-m 512 [--margin 0.03]
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate_forced_run as cal  # noqa: E402
import fit_dense_time_model as fit  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--tile", required=True)
    ap.add_argument("--max-m", type=int, required=True)
    ap.add_argument("--margin", type=float, default=0.03)
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(__file__), "..", "..", "ops",
                                                    "dense", "dense_time_model.cc"))
    args = ap.parse_args()
    rows, pingpong = cal.read_model(args.model)
    rows.pop(args.tile, None)  # the row being fitted predicts nothing about the picks
    tile_m, tile_n = fit.TILES[args.tile]

    def predict_pick(variant, key):
        return cal.predict(variant, *key, rows, pingpong, args.sms)

    # (m, n, k, calibrated tile micros, pick, pick micros, factor) for every one-wave shape.
    shapes = []
    for path in args.runs:
        picks, forced = cal.read_run(path)
        logs = [math.log(p / t) for key, (v, t) in picks.items()
                if t is not None and (p := predict_pick(v, key)) is not None]
        factor = math.exp(sum(logs) / len(logs))
        print(f"{path}: factor {factor:.4f} over {len(logs)} shapes")
        for key, times in forced.items():
            m, n, _ = key
            tiles = fit.ceil_div(m, tile_m) * fit.ceil_div(n, tile_n)
            last_rows = m % tile_m
            if (args.tile not in times or tiles > args.sms or not 128 <= m <= args.max_m or
                    0 < last_rows <= 64):
                continue
            shapes.append((*key, times[args.tile] * factor, *picks[key], factor))
    data = [s[:4] for s in shapes]
    fill, coef, err = fit.fit(args.tile, data, args.sms)
    print(f"    {{Variant::k{fit.camel(args.tile)}, {fill:.1f}, {coef[0]:.4g}, {coef[1]:.4g}, "
          f"{coef[2]:.4g}, {coef[3]:.4g}, {coef[4]:.4g}, 128, 65, 1, kPickMargin, "
          f"{args.max_m}}},  // {len(data)}, {math.sqrt(err):.3f}")
    logs, slower = [], 0
    for held in sorted({s[1:3] for s in shapes}):
        model = fit.fit(args.tile, [d for d in data if d[1:3] != held], args.sms)
        for m, n, k, tile_us, pick, pick_us, factor in shapes:
            if (n, k) != held:
                continue
            predicted = fit.predict(args.tile, model, (m, n, k), args.sms)
            pick_predicted = predict_pick(pick, (m, n, k)) or pick_us * factor
            if predicted * (1 + args.margin) >= pick_predicted:
                continue
            ratio = pick_us * factor / tile_us
            logs.append(math.log(ratio))
            slower += ratio < 0.97
            print(f"{m}x{n}x{k}: {pick} {pick_us:.1f} us -> {args.tile} {tile_us / factor:.1f}, "
                  f"{ratio:.3f} (predicted {pick_predicted:.1f} -> {predicted:.1f})")
    if logs:
        print(f"leave-one-(N, K)-out: {len(logs)} picks changed, geomean pick / tile "
              f"{math.exp(sum(logs) / len(logs)):.4f}, {slower} slower by over 3 %")


if __name__ == "__main__":
    main()
