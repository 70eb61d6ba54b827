#!/usr/bin/env bash
# The forced runs that fit the time-model rows of wgmma_128x112 / _pingpong and
# wgmma_192x128_splitk / _tail (bench/NOTES.md, sessions 33-35; their rows so far come from H100
# runs, and _pingpong has none): each forced with the dispatcher's own row first
# (bench/model/calibrate_forced_run.py's input) on the session-23 grid's (N, K). Run on the GPU
# machine (the H200: the model's frame) from the repo root, with GPUOPS=<gpuops binary>; CSVs
# under $OUT. About 1 + 1 minutes.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/fit_out}; mkdir -p "$OUT"
G=${GPUOPS:-build/cuda/tools/gpuops/gpuops}
GRID=bench/results/2026-12-04-s23-grid-new-tiles.csv
# --shape M,N,K for every (N, K) of the grid at the given Ms, each (N, K)'s Ms together (perf
# makes a weight shape's random weights once for the rows that follow one another on it).
shapes() {
  python3 - "$GRID" "$@" <<'PY'
import csv, sys
nk = sorted({(int(r["n"]), int(r["k"])) for r in csv.DictReader(open(sys.argv[1]))})
print(" ".join(f"--shape {m},{n},{k}" for n, k in nk for m in map(int, sys.argv[2:])))
PY
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# 128x112 where its fit's shapes lie (M >= 128, last m-block > 64 rows), one to many waves.
"$G" perf --op 'dense|dense\.wgmma_128x112(_pingpong)?' --shapes none --no-read --iterations 10 \
  $(shapes 256 384 512 640 768 1024 1536 2048) --csv "$OUT/grid-128x112.csv" > "$OUT/grid-128x112.log" 2>&1
# 192-row splits against the tiles they compete with at M = 129..224. (wgmma_192x128_tail runs
# unsplit until it has a TailModel row: SplitsFor asks the model for the split count, so give it
# a provisional row, e.g. 128x128_tail's costs, before timing it.)
"$G" perf --op 'dense|dense\.wgmma_(192x(64|128)|192x128_splitk|128x128(_pingpong)?)' \
  --shapes none --no-read --iterations 10 $(shapes 160 192 224) --csv "$OUT/grid-192-rows.csv" \
  > "$OUT/grid-192-rows.log" 2>&1
tail -n 1 "$OUT"/grid-*.log
