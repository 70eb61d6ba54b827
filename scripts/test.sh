#!/usr/bin/env bash
# Builds gpuops (the cuda preset where nvcc is, the mock preset otherwise; missing Debian
# packages are installed) and runs the whole test suite through ctest: on a machine with a GPU
# that includes the CUDA tests. Usage: scripts/test.sh [extra ctest arguments]
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
preset=$(gpuops_preset)
echo "scripts/test.sh: building and testing the $preset preset"
gpuops_configure "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset" "$@"
