#!/usr/bin/env bash
# Runs on the GPU machine over a tree staged by scripts/gpu_stage.sh: compute-sanitizer's
# memcheck, racecheck and initcheck over the CUDA tests and `gpuops check --shapes quick`, then
# prints each tool's error count per program (TOOLS="memcheck" runs a subset of the tools,
# ONLY="nvfp4|check_quick" a subset of the programs). Reports a tool makes on purpose-built faults (the
# fault test's illegal address) are listed as expected. Logs go under $OUT/sanitize.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpuops_out}
logs=$OUT/sanitize
mkdir -p "$logs"
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GPUOPS_TOOL_PATH=$PWD/.gpu/bin/gpuops GPUOPS_SOURCE_DIR=$PWD
summary=$OUT/sanitize_summary.txt
: >"$summary"
# name|command (the CUDA instances of the tests; the mock's need no device sanitizer)
programs=(
  "conformance|.gpu/bin/conformance_test --gtest_filter=*cuda*"
  "backend_bad_input|.gpu/bin/backend_bad_input_test --gtest_filter=*cuda*"
  "ops_bad_input|.gpu/bin/ops_bad_input_test --gtest_filter=*cuda*"
  "check_quick|.gpu/bin/gpuops check --backend cuda --shapes quick"
  "nvfp4|.gpu/bin/nvfp4_test --gtest_filter=*cuda*"
  "fp8|.gpu/bin/fp8_test --gtest_filter=*cuda*"
  "fault|.gpu/bin/cuda_fault_test"
)
for tool in ${TOOLS:-memcheck racecheck initcheck}; do
  for entry in "${programs[@]}"; do
    name=${entry%%|*}
    cmd=${entry#*|}
    [[ -n "${ONLY:-}" && ! "$name" =~ ^(${ONLY})$ ]] && continue
    [ "$tool" != memcheck ] && [ "$name" = fault ] && continue
    log=$logs/${tool}_$name.log
    start=$(date +%s)
    timeout ${SANITIZE_TIMEOUT:-150} compute-sanitizer --tool "$tool" --print-limit 100000 $cmd \
      >"$log" 2>&1
    rc=$?
    errors=$(grep -oP '(ERROR SUMMARY: \K[0-9]+|RACECHECK SUMMARY: \K[0-9]+)' "$log" | tail -1)
    # Device-side reports (bad accesses, uninitialized reads, races) apart from the API errors
    # the program's own negative paths provoke (counted per API call).
    device=$(grep -cE '^========= +(Invalid|Uninitialized|Race|Warning|Error:|Barrier|Out-of-range|Misaligned|Address)' "$log")
    api=$(grep -oP 'on CUDA API call to \K[A-Za-z0-9_]+' "$log" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')
    echo "$tool $name: rc=$rc reports=${errors:-?} device=$device api: ${api:-none} ($(( $(date +%s) - start ))s)" | tee -a "$summary"
    grep -m 5 -E '^========= +(Invalid|Uninitialized|Race|Warning|Error:|Barrier|Out-of-range|Misaligned|Address)' "$log" | sed 's/^/    /' | tee -a "$summary"
  done
done
