#!/usr/bin/env bash
# Installs what is missing, configures, builds, and runs `gpuops check` on the default backend
# (CUDA where a driver and GPU are present, else the mock executing on the CPU).
# Arguments go to `gpuops check` (e.g. --shapes full, --op 'dense\.tc').
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --preset mock
cmake --build --preset mock --target gpuops
./build/mock/tools/gpuops/gpuops check "$@"
