#!/usr/bin/env bash
# Runs the gemv lab on the GPU machine; output under $OUT.
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/lab_out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 400 .gpu/lab/gemv_lab | tee "$OUT/lab.csv"
cuobjdump -sass .gpu/lab/gemv_lab > "$OUT/lab_sass.txt" 2>&1
awk '/Function :/ {f=$3} /LDG/ {l[f]++} /HMMA/ {h[f]++} END {for (k in l) printf "%s LDG=%d HMMA=%d\n", k, l[k], h[k]}' "$OUT/lab_sass.txt"
