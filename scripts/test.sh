#!/usr/bin/env bash
# Installs what is missing, configures, builds and runs the whole test suite (mock preset).
# Usage: scripts/test.sh [extra ctest arguments]
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --preset mock
cmake --build --preset mock
ctest --preset mock "$@"
