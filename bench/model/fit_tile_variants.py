#!/usr/bin/env python3
"""Fits a tile's split-K and tail variants against the tile itself, forced in the same run.

Input: `gpuops perf --op 'dense|dense\\.wgmma_<T>|dense\\.wgmma_<T>_tail|dense\\.wgmma_<T>_splitk'
--shapes none --shape ...`, each shape's rows one after another (perf measures problem by
problem). Each shape's times are scaled by the time model's prediction for the tile
(ops/dense/dense_time_model.cc) over the tile's measured time, so that rows fitted on another
card or day rank against the model's (bench/NOTES.md, session 34). Then:
- the tail variant's TailModel costs: calibrated time = the tile's row over DenseGemm's tail
  waves (PredictTail without its own costs) + fixed + partial_mb * the splits' FP32 partial MB,
  least squares on relative error, over the shapes where the tail split (its split count is the
  one the dispatcher chose: read from the mock's `gpuops trace`, built with the rows the run used);
- the split-K variant's row (fit_dense_time_model.fit) over the shapes where SplitsFor splits.

Usage: fit_tile_variants.py RUN.csv --tile wgmma_192x128 --mock build/mock/tools/gpuops/gpuops
"""
import argparse
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate_forced_run as cal  # noqa: E402
import fit_dense_time_model as fit  # noqa: E402


def traced_splits(mock, variant, m, n, k):
    out = subprocess.run([mock, "trace", "dense." + variant, "--m", str(m), "--n", str(n),
                          "--k", str(k)], capture_output=True, text=True, check=True).stdout
    found = re.search(r"splits (\d+)", out)
    return int(found.group(1)) if found else 1


def tail_base(rows, tile, m, n, k, splits, sms):
    """PredictTail without the tail's own costs, and the partial MB (TailOf / TailGrid)."""
    tm, tn = fit.TILES[tile]
    fill, (launch, wave, k_wave, weight_mb, _) = rows[tile]
    tiles = fit.ceil_div(m, tm) * fit.ceil_div(n, tn)
    grid = sms if tiles >= sms else min(tiles * splits, sms)
    tail = 0 if splits <= 1 else (tiles if tiles < grid else tiles % grid)
    if tail == 0:
        return None
    dp_waves = (tiles - tail) // grid
    units = tail * splits
    full, last = divmod(units, sms)
    filled = full + (last > 0) * (1 - fill + fill * last / sms)
    micros = (launch + wave * (dp_waves + fit.ceil_div(units, grid)) +
              k_wave * (k * dp_waves + k / splits * filled) + weight_mb * (n * k + m * k) * 2 / 1e6)
    return micros, units * tm * tn * 4 / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--tile", required=True)
    ap.add_argument("--mock", required=True)
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(__file__), "..", "..", "ops",
                                                    "dense", "dense_time_model.cc"))
    args = ap.parse_args()
    rows, pingpong = cal.read_model(args.model)
    tail_name, split_name = args.tile + "_tail", args.tile + "_splitk"
    _, shapes = cal.read_run(args.run)
    tail_points, split_points = [], []
    for (m, n, k), timed in shapes.items():
        if args.tile not in timed:
            continue
        factor = cal.predict(args.tile, m, n, k, rows, pingpong, args.sms) / timed[args.tile]
        if tail_name in timed:
            splits = traced_splits(args.mock, tail_name, m, n, k)
            base = tail_base(rows, args.tile, m, n, k, splits, args.sms)
            if base is not None:
                tail_points.append(((m, n, k, splits), timed[tail_name] * factor, *base))
        if split_name in timed and fit.splits(split_name, m, n, k, args.sms) > 1:
            split_points.append((m, n, k, timed[split_name] * factor))
    if tail_points:
        a = [[1 / t, mb / t] for _, t, _, mb in tail_points]
        b = [(t - base) / t for _, t, base, _ in tail_points]
        ata = [[sum(x[i] * x[j] for x in a) for j in range(2)] for i in range(2)]
        atb = [sum(x[i] * y for x, y in zip(a, b)) for i in range(2)]
        fixed, per_mb = fit.solve(ata, atb)
        errors = [(base + fixed + per_mb * mb) / t - 1 for _, t, base, mb in tail_points]
        print(f"{tail_name}: fixed_us {fixed:.4g}, partial_mb_us {per_mb:.4g} on {len(errors)} "
              f"shapes, rms {math.sqrt(sum(e * e for e in errors) / len(errors)):.3f}, "
              f"max {max(map(abs, errors)):.3f}")
        for (shape, _, _, _), e in zip(tail_points, errors):
            print(f"  {shape[0]}x{shape[1]}x{shape[2]} {shape[3]} splits: {e:+.3f}")
    if split_points:
        fill_share, coef, err = fit.fit(split_name, split_points, args.sms)
        print(f"{split_name}: fill {fill_share}, launch / wave / k_wave / weight_mb / partial_mb "
              f"{' / '.join(f'{c:.4g}' for c in coef)} on {len(split_points)} shapes, "
              f"rms {math.sqrt(err):.3f}")


if __name__ == "__main__":
    main()
