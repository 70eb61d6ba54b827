#!/usr/bin/env bash
# Runs on the GPU machine over a tree staged by scripts/gpu_stage.sh: every test executable, the
# cuobjdump cross-check of signatures.txt, and the benchmarks. Logs go into one archive under
# $OUT, re-written after every step (a call returns at most 8 files, and one cut off at its limit
# keeps the steps that finished); a summary prints last. Usage: scripts/gpu_session.sh [STEP...]
# with steps tests, check, perf, variants, bench (the default: all of these), and on request
# tiles, profile, issues (the figures issues 15 and 16 ask for, and the H200's losers forced:
# ~7 min), fp8lab (bench/lab/fp8_decode_lab.cu, built there with nvcc, beside tc_m16 on the same
# shapes: ~2 min). PERF_ARGS adds flags to the perf step.
set -uo pipefail
cd "$(dirname "$0")/.."
steps=" ${*:-tests check perf variants bench} "
want() { [[ "$steps" == *" $1 "* ]]; }
OUT=${OUT:-/tmp/gpuops_out}
logs=$(mktemp -d)/logs
mkdir -p "$logs" "$OUT"
archive() { tar -C "$(dirname "$logs")" -czf "$OUT/logs.tar.gz" logs; }
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Tests that run the tool or read sources find them here, not at the build machine's paths.
export GPUOPS_TOOL_PATH=$PWD/.gpu/bin/gpuops GPUOPS_SOURCE_DIR=$PWD
# The HIP backend's tests run through the stand-in runtime (the machine has no AMD GPU).
export GPUOPS_HIP_RUNTIME=$PWD/.gpu/lib/libgpuops_hip_standin.so
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

{ date -u; pwd; uname -a; nvidia-smi; nvcc --version; } >"$logs/env.txt" 2>&1
say "machine: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1)"

# cuBLASLt for perf: the machine's own (too large to carry).
if [ -z "${GPUOPS_CUBLASLT:-}" ]; then
  GPUOPS_CUBLASLT=$(find /usr/local/cuda*/ /usr/lib /opt -name 'libcublasLt.so.1[23]*' 2>/dev/null | head -1)
  export GPUOPS_CUBLASLT
fi
say "cuBLASLt: ${GPUOPS_CUBLASLT:-not found}"

archive
if want tests; then
  for t in .gpu/bin/*_test; do
    name=$(basename "$t")
    start=$(date +%s)
    timeout 420 "$t" --gtest_output=xml:"$logs/$name.xml" >"$logs/$name.log" 2>&1
    rc=$?
    passed=$(grep -oP '^\[  PASSED  \] \K[0-9]+' "$logs/$name.log" || echo 0)
    failed=$(grep -oP '^\[  FAILED  \] \K[0-9]+(?= tests?, listed below)' "$logs/$name.log" || echo 0)
    skipped=$(grep -oP '^\[  SKIPPED \] \K[0-9]+(?= tests?, listed below)' "$logs/$name.log" || echo 0)
    say "test $name: rc=$rc passed=$passed failed=$failed skipped=$skipped ($(( $(date +%s) - start ))s)"
    grep -E '^\[  FAILED  \] [A-Z]' "$logs/$name.log" | sort -u | head -8 | sed 's/^/    /' | tee -a "$summary"
  done
  say "--- signatures.txt vs cuobjdump -elf"
  args=()
  for fam in ops/*/; do
    f=$(basename "$fam")
    [ -f ".gpu/fatbin/$f.fatbin" ] && args+=(".gpu/fatbin/$f.fatbin" "ops/$f/signatures.txt")
    [ -f ".gpu/fatbin/$f.fatbin" ] && cuobjdump -elf ".gpu/fatbin/$f.fatbin" >"$logs/cuobjdump_$f.txt" 2>&1
  done
  python3 scripts/cuobjdump_check.py "${args[@]}" >"$logs/cuobjdump_check.txt" 2>&1
  say "cuobjdump check rc=$? ($(grep -c '^  ok ' "$logs/cuobjdump_check.txt") kernels ok, $(grep -cE '^  (DIFFERS|MISSING|MISMATCH)' "$logs/cuobjdump_check.txt") problems)"
  grep -E '^  (DIFFERS|MISSING|MISMATCH)' "$logs/cuobjdump_check.txt" | head -5 | tee -a "$summary"
  cuobjdump -sass .gpu/fatbin/dense.fatbin >"$logs/dense_sass.txt" 2>&1
  say "SASS: $(awk '/Function :/ {f=$3} /HGMMA/ {h[f]++} /LDG.E.128/ {l[f]++} END {for (k in h) printf "%s HGMMA=%d; ", k, h[k]; for (k in l) if (k ~ /gemv/) printf "%s LDG.E.128=%d; ", k, l[k]}' "$logs/dense_sass.txt")"
  for s in ops/*/signatures.txt; do
    f=$(basename "$(dirname "$s")")
    .gpu/bin/gpuops_sigtool --family "$f" --fatbin ".gpu/fatbin/$f.fatbin" \
      --sources ops/"$f"/cuda/* --check "$s" >>"$logs/sigtool.txt" 2>&1
    say "sigtool --check $f: rc=$?"
  done
fi

archive
if want check; then
  .gpu/bin/gpuops info >"$logs/info.txt" 2>&1
  .gpu/bin/gpuops check --backend cuda >"$logs/check.txt" 2>&1
  say "gpuops check --backend cuda: rc=$? $(tail -1 "$logs/check.txt")"
  grep -E 'FAIL|ERROR' "$logs/check.txt" | head -5 | tee -a "$summary"
fi

archive
if want perf; then
  .gpu/bin/gpuops perf --csv "$OUT/perf.csv" --plot "$OUT/perf.svg" ${PERF_ARGS:-} >"$logs/perf.txt" 2>&1
  say "gpuops perf: rc=$?"
  sed -n '/^| shape/,$p' "$logs/perf.txt" | tee -a "$summary"
  grep -E '^gpuops perf' "$logs/perf.txt" | head -5 | tee -a "$summary"
fi

archive
if want variants; then
  .gpu/bin/gpuops perf --shapes variants --batch 10 --csv "$OUT/variants.csv" >"$logs/variants.txt" 2>&1
  say "gpuops perf --shapes variants: rc=$?"
  sed -n '/^| shape/,$p' "$logs/variants.txt" | tee -a "$summary"
fi

archive
if want tiles; then
  # Both wgmma tile widths on the prefill shapes, to calibrate the dispatcher's choice.
  for v in wgmma_128x256 wgmma_128x128; do
    .gpu/bin/gpuops perf --shapes prefill --variant $v --csv "$logs/tiles_$v.csv" >"$logs/tiles_$v.txt" 2>&1
    say "tiles $v: $(awk -F, 'NR>1 {printf "%s/%s %sus x%s; ", $1, $2, $6, $8}' "$logs/tiles_$v.csv")"
  done
fi

archive
if want profile; then
  # Nsight Compute on one launch of each Hopper kernel (clocks left alone).
  for spec in "wgmma:4096,4096,4096" "gemv:1,4096,4096"; do
    kernel=${spec%%:*}
    ncu --clock-control none --kernel-name "regex:$kernel" --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats \
      .gpu/bin/gpuops perf --shapes none --shape "${spec#*:}" --iterations 20 \
      >"$logs/ncu_$kernel.txt" 2>&1
    say "ncu $kernel rc=$?"
    grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|L2 Cache Throughput|Warp Cycles Per Issued|Issued Ipc" "$logs/ncu_$kernel.txt" | head -12 | tee -a "$summary"
  done
fi

archive
if want bench; then
  .gpu/bin/launch_overhead --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    >"$logs/launch_overhead.txt" 2>&1
  .gpu/bin/cuda_launch_overhead --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    >"$logs/cuda_launch_overhead.txt" 2>&1
  say "--- launch overhead (median of 5)"
  grep -E '_median' "$logs/cuda_launch_overhead.txt" "$logs/launch_overhead.txt" | sed 's/^.*\.txt://' | tee -a "$summary"
fi

if want issues; then
  # Issue 16: the squares and the sweep twice (the first with its heat map); issue 15: FP8
  # decode per launch and back to back, and M = 17..64, each against our BF16 on the same samples.
  g=.gpu/bin/gpuops
  figure() {  # figure NAME ARGS...: one perf run, its two summary lines in the summary
    local name=$1; shift
    "$g" perf "$@" --csv "$logs/$name.csv" >"$logs/$name.txt" 2>&1
    say "$name: rc=$? $(grep -E '^(speedup|versus)' "$logs/$name.txt" | tr '\n' ' ')"
    archive
  }
  figure square --op dense --shapes square --iterations 30 --no-read
  figure sweep-1 --op dense --shapes sweep --iterations 10 --no-read --heatmap "$logs/sweep-1.svg"
  figure fp8-decode-b1 --op fp8 --shapes decode --versus dense --iterations 20
  figure fp8-decode-b10 --op fp8 --shapes decode --versus dense --iterations 20 --batch 10
  figure fp8-decode-b10-settled --op fp8 --shapes decode --versus dense --iterations 20 --batch 10 \
    --weight-settled
  figure fp8-batch --op fp8 --shapes batch --versus dense --iterations 20 --no-read
  figure sweep-2 --op dense --shapes sweep --iterations 10 --no-read
  # The H200's five rows below 0.95 in session 33, each candidate tile forced beside the dispatcher
  # (llama3.1-70b gate_up M = 192 / 256 and down M = 192, qwen2.5-7b and gemma2-9b down M = 512).
  figure losers-forced --op 'dense|dense\.wgmma_(192x64|192x128|192x128_splitk|192x128_tail|128x128|128x128_pingpong|128x112|128x256_splitk)' \
    --shapes none --iterations 10 --no-read --shape 192,57344,8192 --shape 256,57344,8192 \
    --shape 192,8192,28672 --shape 512,3584,18944 --shape 512,3584,14336
fi

if want fp8lab; then
  # The decode lab's register-load candidates against the same-size read, and production's tc_m16
  # (TMA) on the lab's shapes at M = 12 / 16 for its two-tile candidates.
  nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iops/fp8/cuda -Iops -Iruntime -I. \
    bench/lab/fp8_decode_lab.cu -o "$logs/fp8_decode_lab" >"$logs/fp8lab-build.txt" 2>&1
  timeout 300 "$logs/fp8_decode_lab" >"$logs/fp8lab.csv" 2>&1
  say "fp8lab: rc=$? $(grep -vc '^#' "$logs/fp8lab.csv") rows"
  rm -f "$logs/fp8_decode_lab"
  shapes=""
  for nk in 6144,4096 4096,4096 4096,14336 28672,4096 3584,18944 5120,5120 2048,8192 1536,8960 \
            8192,3072; do shapes="$shapes --shape 12,$nk --shape 16,$nk"; done
  # shellcheck disable=SC2086
  .gpu/bin/gpuops perf --op 'fp8\.tc_m16' --shapes none --iterations 20 $shapes \
    --csv "$logs/fp8lab-tc_m16.csv" >"$logs/fp8lab-tc_m16.txt" 2>&1
  say "fp8lab tc_m16: rc=$?"
  archive
fi

archive && rm -rf "$(dirname "$logs")"
echo "=== summary"; cat "$summary"
