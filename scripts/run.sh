#!/usr/bin/env bash
# Builds gpuops (the cuda preset where nvcc is, the mock preset otherwise; missing Debian
# packages are installed) and runs `gpuops check` on the best backend this build can run: CUDA
# where a driver, a GPU and this build's kernels are, else the mock executing on the CPU (check
# says why it passed CUDA over). Arguments go to `gpuops check` (e.g. --shapes full).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
preset=$(gpuops_preset)
echo "scripts/run.sh: building the $preset preset"
gpuops_configure "$preset"
cmake --build --preset "$preset" --target gpuops
exec "./build/$preset/tools/gpuops/gpuops" check "$@"
