#!/usr/bin/env bash
# What bounds the FP8 split kernels' streaming rate (bench/NOTES.md, session 10)? Runs on the GPU
# machine from the repo root after the cuda preset was configured (CMAKE_PREFIX_PATH as in the
# guide); writes $OUT/probe.csv. Each probe rebuilds gpuops with bench/lab/fp8-pipeline-probe.patch
# applied at one FP8_PROBE value (see the patch), or with the M <= 32 split tile at 6 stages
# ("stages6"), or with the activations staged by TMA ("tma", checked first), times the forced
# split kernels at shapes of one and of two blocks an SM, and puts the tree back; then profiles the real kernel's pipes and memory units with ncu. Probes 1-3
# compute garbage: time them, never check them.
set -uo pipefail
OUT=${OUT:-/tmp/probe_out}; mkdir -p "$OUT"
G=build/cuda/tools/gpuops/gpuops
export GPUOPS_CUBLASLT=${GPUOPS_CUBLASLT:-$(find /usr/local/cuda*/ -name 'libcublasLt.so.1[23]*' 2>/dev/null | head -1)}
shapes=(--shape 24,4096,4096 --shape 24,4096,14336 --shape 24,6144,4096 --shape 48,4096,4096
        --shape 48,4096,14336 --shape 48,6144,4096)
# The device's copy of the tree has no .git: keep the touched paths aside and copy them back
# (with new mtimes, so ninja rebuilds from them).
# (Every path a patch here touches: ops/fp8, ops/device, tests/ops/fp8, README.md.)
P=$(mktemp -d)
cp -r ops/fp8 "$P/fp8" && cp -r ops/device "$P/device" && cp -r tests/ops/fp8 "$P/tests_fp8" &&
  cp README.md "$P/README.md"
restore() {
  rm -rf ops/fp8 ops/device tests/ops/fp8
  cp -r "$P/fp8" ops/fp8 && cp -r "$P/device" ops/device && cp -r "$P/tests_fp8" tests/ops/fp8 &&
    cp "$P/README.md" README.md
}
apply() { git apply "$1" 2>/dev/null || patch -p1 --forward --quiet < "$1"; }
trap restore EXIT
echo "probe,$(echo 'shape,family,m,n,k,variant,ours_us')" > "$OUT/probe.csv"
for probe in 0 1 2 3 stages6 tma; do
  restore
  if [ "$probe" = stages6 ]; then
    sed -i 's/^using WgM32N64Split2Tile = WgmmaRowsTile<32, 4, 2, 1>;/using WgM32N64Split2Tile = WgmmaRowsTile<32, 6, 2, 1>;/' ops/fp8/cuda/fp8_tiles.h
  elif [ "$probe" = tma ]; then
    # The activations staged by TMA (bench/lab/fp8-tma-activations.patch): a real kernel, so
    # checked on the GPU before it is timed.
    apply bench/lab/fp8-tma-activations.patch || { echo "probe tma: patch failed"; continue; }
  else
    apply bench/lab/fp8-pipeline-probe.patch &&
      sed -i "s/^#define FP8_PROBE .*/#define FP8_PROBE $probe/" ops/fp8/cuda/fp8_wgmma.cuh
  fi
  cmake --build build/cuda --target gpuops > "$OUT/build_$probe.txt" 2>&1 || { echo "probe $probe: build failed"; continue; }
  if [ "$probe" = tma ]; then
    timeout 60 $G check --backend cuda --op 'fp8\.wg_.*' > "$OUT/check_tma.txt" 2>&1
    echo "probe tma: check rc=$? $(tail -n 1 "$OUT/check_tma.txt")"
  fi
  timeout 60 $G perf --op 'fp8\.(wg_m32_n64_split2|wg_m64_n64_split2)' --shapes none "${shapes[@]}" \
    --iterations 20 --no-read --csv "$OUT/p.csv" > /dev/null 2>&1
  echo "probe $probe rc=$?"
  [ -f "$OUT/p.csv" ] && tail -n +2 "$OUT/p.csv" | cut -d, -f1-7 | sed "s/^/$probe,/" >> "$OUT/probe.csv"
  rm -f "$OUT/p.csv"
done
restore
cmake --build build/cuda --target gpuops > "$OUT/build_restored.txt" 2>&1  # the real kernels again
# Which unit the real kernel keeps busy: pipe utilization (ALU / FMA / LSU / tensor), shared
# memory and L1 (LSU, MIO) throughput, at one block an SM (o, M = 24) and two (qkv, M = 48).
for spec in 24,4096,4096 48,6144,4096; do
  timeout 120 ncu --clock-control none --kernel-name regex:w8a16_gemm_wg_m.*_n64_split2 \
    --launch-skip 3 --launch-count 1 --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section InstructionStats --section SpeedOfLight --print-details all \
    $G perf --op fp8 --shapes none --shape $spec --iterations 10 --no-read > "$OUT/ncu_${spec//,/x}.txt" 2>&1
  echo "ncu $spec rc=$?"
done
