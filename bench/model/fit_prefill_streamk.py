#!/usr/bin/env python3
"""Fits PrefillStreamKFirst (ops/fp8/fp8_gemm.cc) to a forced run of wg_m128 and wg_m128_streamk.

Input: the CSV of `gpuops perf --op 'fp8\\.wg_m128(_streamk)?' --shapes none --no-read --shape ...`
(gpurun/s37c.sh's grid). For each (step cost num/10, fixed steps) the rule picks one of the two per
shape; prints the best few by geomean time against the faster of the two, with the count of shapes
picked more than 3 % slower than that.
"""
import csv, math, sys, collections

SMS = 132


def rule(m, n, k, num, den, fixed, sms=SMS):
    tiles = (n + 127) // 128 * ((m + 127) // 128)
    kb = k // 128
    waves = (tiles + sms - 1) // sms
    share = (tiles * kb + sms - 1) // sms
    return share * num // den + fixed < waves * kb


rows = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    rows[(int(r['m']), int(r['n']), int(r['k']))][r['variant']] = float(r['ours_us'])
shapes = {s: d for s, d in rows.items() if len(d) == 2}
results = []
for num in range(10, 16):
    for fixed in range(0, 13):
        logs, worse = [], 0
        for (m, n, k), d in shapes.items():
            pick = d['wg_m128_streamk'] if rule(m, n, k, num, 10, fixed) else d['wg_m128']
            best = min(d.values())
            logs.append(math.log(pick / best))
            worse += pick > 1.03 * best
        results.append((math.exp(sum(logs) / len(logs)), worse, num, fixed))
results.sort()
for g, w, num, fixed in results[:8]:
    print(f'step cost {num}/10 fixed {fixed}: {g:.4f}x the faster, {w} shapes > 3 % slower')
print('shapes', len(shapes))
for (m, n, k), d in sorted(shapes.items()):
    print(m, n, k, d['wg_m128'], d['wg_m128_streamk'], round(d['wg_m128'] / d['wg_m128_streamk'], 3),
          'rule:', 'sk' if rule(m, n, k, 11, 10, 4) else 'plain')
