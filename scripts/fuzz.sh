#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz preset: clang 14 with ASan + UBSan) and runs each for
# SECONDS (default 60), JOBS at a time (default 2). Usage: scripts/fuzz.sh [SECONDS] [JOBS];
# TARGETS="fuzz_ops" runs only the ones named.
# Corpora grow under build/fuzz/corpus/<target>; crashes land in build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=${2:-2}
if ! command -v clang++-14 >/dev/null || [ ! -d /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq clang-14 libclang-rt-14-dev
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
out=build/fuzz
./$out/fuzz/fuzz_make_seeds $out/seeds
# Real compiled code as seeds too, when a cuda build is around.
for fb in build/cuda/ops/*/*.fatbin; do
  [ -f "$fb" ] && mkdir -p $out/seeds/fuzz_fatbin && cp "$fb" $out/seeds/fuzz_fatbin/
done
for sig in ops/*/signatures.txt; do
  [ -f "$sig" ] && cp "$sig" "$out/seeds/fuzz_signatures/$(basename "$(dirname "$sig")").txt"
done
mkdir -p $out/artifacts
status=0
run() {
  local t=$1
  mkdir -p $out/corpus/$t $out/seeds/$t  # a target may have no seeds of its own
  echo "fuzzing $t for ${seconds}s"
  if ! ./$out/fuzz/$t $out/corpus/$t $out/seeds/$t -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix=$out/artifacts/$t- -print_final_stats=1 \
      >$out/$t.log 2>&1; then
    echo "FAIL: $t (see $out/$t.log)"; return 1
  fi
  echo "ok: $t: $(grep -E 'stat::number_of_executed_units' $out/$t.log | awk '{print $2}') runs, no crash"
}
export -f run; export out seconds
printf '%s\n' ${TARGETS:-fuzz_elf fuzz_nvinfo fuzz_fatbin fuzz_signatures fuzz_amd fuzz_ops} |
  xargs -P "$jobs" -I{} bash -c 'run {}' || status=1
exit $status
