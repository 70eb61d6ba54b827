#!/usr/bin/env bash
# Runs on the GPU machine over a tree staged by scripts/gpu_stage.sh: every test executable, the
# cuobjdump cross-check of signatures.txt, and the benchmarks. Logs go into one archive under
# $OUT; a summary prints last. Usage: scripts/gpu_session.sh [tests|bench|all] (default all)
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
OUT=${OUT:-/tmp/gpuops_out}
logs=$OUT/logs
mkdir -p "$logs"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

{ date -u; pwd; uname -a; nvidia-smi; nvcc --version; } >"$logs/env.txt" 2>&1
say "machine: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1)"

if [ "$what" = all ] || [ "$what" = tests ]; then
  for t in .gpu/bin/*_test; do
    name=$(basename "$t")
    start=$(date +%s)
    timeout 600 "$t" --gtest_output=xml:"$logs/$name.xml" >"$logs/$name.log" 2>&1
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
  for s in ops/*/signatures.txt; do
    f=$(basename "$(dirname "$s")")
    .gpu/bin/gpuops_sigtool --family "$f" --fatbin ".gpu/fatbin/$f.fatbin" \
      --sources ops/"$f"/cuda/* --check "$s" >>"$logs/sigtool.txt" 2>&1
    say "sigtool --check $f: rc=$?"
  done
fi

if [ "$what" = all ] || [ "$what" = bench ]; then
  .gpu/bin/launch_overhead --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    >"$logs/launch_overhead.txt" 2>&1
  .gpu/bin/cuda_launch_overhead --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    >"$logs/cuda_launch_overhead.txt" 2>&1
  say "--- launch overhead (median of 5)"
  grep -E '_median' "$logs/cuda_launch_overhead.txt" "$logs/launch_overhead.txt" | sed 's/^.*\.txt://' | tee -a "$summary"
fi

tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs && rm -rf "$logs"
echo "=== summary"; cat "$summary"
