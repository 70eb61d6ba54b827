#!/usr/bin/env python3
"""Fits the dense dispatcher's time model (ops/dense/dense_time_model.cc) to forced-variant runs.

Input: CSVs of `gpuops perf --op 'dense|dense\\.wgmma_.*' --shapes none --shape ... --csv F`, in
which each (M, N, K) appears once per timed op: first the dispatcher's row, then one row per forced
variant (bench/NOTES.md, session 18). Only the forced rows are fitted.

Model, per variant: micros = launch + wave * waves + k_wave * k_each * filled_waves
                             + weight_mb * (N K + M K) * 2 / 1e6 + partial_mb * S M N * 4 / 1e6
  tiles  = ceil(M / tile_m) * ceil(N / tile_n) * S    (S: the split count, 1 unsplit)
  waves  = ceil(tiles / SMs)
  filled_waves = full waves + (1 - fill_share + fill_share * last wave's tiles / SMs)
  k_each = K / S
Least squares on relative error, coefficients kept >= 0 (a negative one is pinned to 0 and the
rest refitted), fill_share chosen from 0, 0.1, ..., 1. Prints the C++ table rows and the
selection check: the variant the model picks against the fastest measured, with each (N, K)
left out of the fit in turn.

gemv_m16 (--gemv-m16 CSV...: every gemv_m16 row at M <= 16 of those CSVs, dispatcher's or
forced): micros = launch + wave * ceil(ceil(N / 16) / SMs) + weight_mb * (N K + M K) * 2 / 1e6.

ping-pong (--pingpong CSV...: wgmma_128x128/192_pingpong and their tiles forced on the same
shapes): the tile's time divided by 1 - loss on one wave, less hidden x (waves - 1) past it.

Usage: fit_dense_time_model.py [--sms 132] [CSV...] [--gemv-m16 CSV...] [--pingpong CSV...]
"""
import argparse
import collections
import csv
import math

TILES = {
    "wgmma_128x256": (128, 256), "wgmma_192x192": (192, 192), "wgmma_128x192": (128, 192),
    "wgmma_192x128": (192, 128), "wgmma_128x128": (128, 128), "wgmma_192x64": (192, 64),
    "wgmma_64x128": (64, 128), "wgmma_64x64": (64, 64),
    "wgmma_64x128_splitk": (64, 128), "wgmma_128x128_splitk": (128, 128),
    "wgmma_128x256_splitk": (128, 256),
    "wgmma_128x144": (128, 144), "wgmma_128x96": (128, 96),
    "wgmma_128x160": (128, 160), "wgmma_128x176": (128, 176),
    "wgmma_128x112": (128, 112), "wgmma_192x128_splitk": (192, 128),
}
MAX_SPLITS = 16  # kWgmmaMaxSplits


def ceil_div(a, b):
    return -(-a // b)


def splits(variant, m, n, k, sms):
    """DenseGemm::SplitsFor for the TMA split variants: one wave, >= 256 k per split."""
    if not variant.endswith("_splitk"):
        return 1
    tm, tn = TILES[variant]
    tiles = ceil_div(m, tm) * ceil_div(n, tn)
    return max(1, min(sms // tiles, max(1, k // 256), MAX_SPLITS))


def features(variant, m, n, k, fill_share, sms):
    tm, tn = TILES[variant]
    s = splits(variant, m, n, k, sms)
    units = ceil_div(m, tm) * ceil_div(n, tn) * s
    full, last = divmod(units, sms)
    waves = full + (last > 0)
    filled = full + (last > 0) * (1 - fill_share + fill_share * last / sms)
    return [1.0, waves, (k / s) * filled, (n * k + m * k) * 2 / 1e6,
            s * m * n * 4 / 1e6 if variant.endswith("_splitk") else 0.0]


def solve(a, b):
    """Gaussian elimination with partial pivoting; singular columns get 0."""
    n = len(b)
    a = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[p][c]) < 1e-12:
            continue
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c and a[r][c] != 0:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [a[i][n] / a[i][i] if abs(a[i][i]) > 1e-12 else 0.0 for i in range(n)]


def fit_once(rows, fill_share, sms):
    """rows: [(m, n, k, micros)]. Returns (coefficients, mean squared relative error)."""
    xs = [features(v_, m, n, k, fill_share, sms) for v_, m, n, k, _ in rows]
    ys = [t for *_, t in rows]
    width = len(xs[0])
    free = [j for j in range(width) if any(x[j] != 0 for x in xs)]
    while True:
        ata = [[sum(x[i] * x[j] / (y * y) for x, y in zip(xs, ys)) for j in free] for i in free]
        atb = [sum(x[i] / y for x, y in zip(xs, ys)) for i in free]
        sol = solve(ata, atb)
        if min(sol) >= 0 or len(free) == 1:
            break
        free.pop(min(range(len(sol)), key=lambda i: sol[i]))
    coef = [0.0] * width
    for j, c in zip(free, sol):
        coef[j] = max(c, 0.0)
    err = sum((sum(c * f for c, f in zip(coef, x)) / y - 1) ** 2 for x, y in zip(xs, ys)) / len(ys)
    return coef, err


def fit(variant, rows, sms):
    best = None
    for i in range(11):
        coef, err = fit_once([(variant, *r) for r in rows], i / 10, sms)
        if best is None or err < best[2]:
            best = (i / 10, coef, err)
    return best


def predict(variant, model, key, sms):
    fill_share, coef, _ = model
    return sum(c * f for c, f in zip(coef, features(variant, *key, fill_share, sms)))


def load(paths):
    """(M, N, K) -> variant -> micros, from the forced rows (each key's first row is the
    dispatcher's and is skipped)."""
    times = collections.defaultdict(dict)
    for path in paths:
        seen = set()
        for r in csv.DictReader(open(path)):
            key = (int(r["m"]), int(r["n"]), int(r["k"]))
            if key not in seen:
                seen.add(key)
                continue
            if r["variant"] in TILES and r["ours_us"] not in ("", "-"):
                times[key][r["variant"]] = float(r["ours_us"])
    return times


def fit_gemv_m16(paths, sms):
    """Least squares on relative error over gemv_m16's rows: (launch, wave, weight_mb), rms."""
    xs, ys = [], []
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["variant"] != "gemv_m16" or r["ours_us"] in ("", "-") or int(r["m"]) > 16:
                continue
            m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
            xs.append([1.0, ceil_div(ceil_div(n, 16), sms), (n * k + m * k) * 2 / 1e6])
            ys.append(float(r["ours_us"]))
    ata = [[sum(x[i] * x[j] / (y * y) for x, y in zip(xs, ys)) for j in range(3)] for i in range(3)]
    atb = [sum(x[i] / y for x, y in zip(xs, ys)) for i in range(3)]
    coef = solve(ata, atb)
    err = sum((sum(c * f for c, f in zip(coef, x)) / y - 1) ** 2 for x, y in zip(xs, ys)) / len(ys)
    return coef, len(ys), math.sqrt(err)


PINGPONG = {"wgmma_128x128_pingpong": "wgmma_128x128", "wgmma_128x192_pingpong": "wgmma_128x192",
            "wgmma_128x144_pingpong": "wgmma_128x144", "wgmma_128x96_pingpong": "wgmma_128x96",
            "wgmma_128x160_pingpong": "wgmma_128x160", "wgmma_128x176_pingpong": "wgmma_128x176",
            "wgmma_128x112_pingpong": "wgmma_128x112"}


def fit_pingpong(paths, sms):
    """The ping-pong variants against their tile, forced on the same shapes in one run.

    One wave: loss = 1 - geomean(tile / ping-pong). Past it: ping-pong = tile - hidden x
    (waves - 1), least squares on relative error. Yields (variant, tile, loss, hidden, n, rms)."""
    times = collections.defaultdict(dict)  # every row: these runs are forced only
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["variant"] in PINGPONG or r["variant"] in PINGPONG.values():
                times[(int(r["m"]), int(r["n"]), int(r["k"]))][r["variant"]] = float(r["ours_us"])
    for pp, tile in PINGPONG.items():
        tn = TILES[tile][1]
        one, more = [], []
        for (m, n, k), d in times.items():
            if pp not in d or tile not in d:
                continue
            waves = ceil_div(ceil_div(m, 128) * ceil_div(n, tn), sms)
            (one if waves <= 1 else more).append((waves - 1, d[tile], d[pp]))
        if not one or not more:
            continue
        loss = 1 - math.exp(sum(math.log(t / p) for _, t, p in one) / len(one))
        hidden = (sum(w * (t - p) / (p * p) for w, t, p in more) /
                  sum((w / p) ** 2 for w, t, p in more))
        rms = math.sqrt(sum(((t - hidden * w) / p - 1) ** 2 for w, t, p in more) / len(more))
        yield pp, tile, loss, hidden, len(one) + len(more), rms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--gemv-m16", nargs="+", default=[])
    ap.add_argument("--pingpong", nargs="+", default=[],
                    help="CSVs with the ping-pong variants and their tiles forced on the same shapes")
    ap.add_argument("csv", nargs="*")
    args = ap.parse_args()
    for pp, tile, loss, hidden, rows, rms in fit_pingpong(args.pingpong, args.sms):
        print(f"    {{Variant::k{camel(pp)}, Variant::k{camel(tile)}, {loss:.3f}, {hidden:.3f}}},  "
              f"// {rows} shapes, rms {rms:.3f} past one wave")
    if not args.csv:
        return
    if args.gemv_m16:
        c, rows, rms = fit_gemv_m16(args.gemv_m16, args.sms)
        print(f"    {{Variant::kGemvM16, 0.0, {c[0]:.4g}, {c[1]:.4g}, 0, {c[2]:.4g}, 0}},  "
              f"// {rows} rows, rms {rms:.3f}")
    times = load(args.csv)
    rows_of = {v: [(*key, d[v]) for key, d in times.items() if v in d] for v in TILES}
    models = {v: fit(v, rows, args.sms) for v, rows in rows_of.items() if rows}
    print("// variant, fill_share, launch, wave, k_wave, weight_mb, partial_mb (micros)")
    for v, (fs, c, err) in models.items():
        print(f"    {{Variant::k{camel(v)}, {fs:.1f}, {c[0]:.4g}, {c[1]:.4g}, {c[2]:.4g}, "
              f"{c[3]:.4g}, {c[4]:.4g}}},  // {len(rows_of[v])} rows, rms {math.sqrt(err):.3f}")
    pairs = sorted({key[1:] for key in times})
    losses = []
    for held in pairs:
        train = {v: fit(v, [r for r in rows if r[1:3] != held], args.sms)
                 for v, rows in rows_of.items() if rows}
        for key, d in times.items():
            if key[1:] != held or len(d) < 2:
                continue
            pick = min((v for v in d if v in train), key=lambda v: predict(v, train[v], key, args.sms))
            losses.append(d[pick] / min(d.values()))
    gm = math.exp(sum(map(math.log, losses)) / len(losses))
    print(f"// leave-one-(N, K)-out selection: {len(losses)} shapes, geomean time over the fastest "
          f"{gm:.4f}, {sum(l > 1.05 for l in losses)} above 1.05, {sum(l > 1.10 for l in losses)} above 1.10")


def camel(name):
    parts = name.replace("wgmma_", "wgmma").split("_")
    return ("".join(p[:1].upper() + p[1:] for p in parts).replace("Splitk", "SplitK")
            .replace("Pingpong", "PingPong"))


if __name__ == "__main__":
    main()
