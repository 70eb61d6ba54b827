#!/usr/bin/env bash
# Installs what is missing, configures, builds and runs the main program.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --preset mock
cmake --build --preset mock --target gpuops
./build/mock/tools/gpuops/gpuops "$@"
