#!/usr/bin/env bash
# Builds and runs the examples against gpuops as a user gets it: installs a configured and built
# preset (default mock) with `cmake --install`, builds examples/decode_step and
# examples/launch_contract against that install through find_package(gpuops), runs them, and
# builds examples/as_subproject (gpuops through FetchContent). Usage: scripts/examples.sh [PRESET]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-mock}
root=$PWD
work=$root/build/examples-$preset
prefix=$work/install
rm -rf "$work"
cmake --install "build/$preset" --prefix "$prefix" >/dev/null
echo "=== examples: installed build/$preset into $prefix"
for example in decode_step launch_contract; do
  cmake -S "examples/$example" -B "$work/$example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_PREFIX_PATH=$prefix${CMAKE_PREFIX_PATH:+;$CMAKE_PREFIX_PATH}" >/dev/null
  cmake --build "$work/$example"
done
echo "=== examples: decode_step (find_package)"
"$work/decode_step/decode_step"
echo "=== examples: launch_contract (find_package, the mock and its matchers)"
ctest --test-dir "$work/launch_contract" --output-on-failure
echo "=== examples: as_subproject (FetchContent)"
cmake -S examples/as_subproject -B "$work/as_subproject" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  ${CMAKE_PREFIX_PATH:+"-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"} >/dev/null
cmake --build "$work/as_subproject"
"$work/as_subproject/decode_step"
