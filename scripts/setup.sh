# Sourced by scripts/run.sh and scripts/test.sh. gpuops_preset picks the build: cuda where the
# CUDA toolkit's nvcc is, mock otherwise. gpuops_configure configures it; only when that finds a
# dependency missing does it install Debian's packages (apt-get as root, else sudo) and configure
# again, so dependencies CMake finds by other means (CMAKE_PREFIX_PATH on a machine without a
# package registry, say) are used as they are.
set -euo pipefail

GPUOPS_DEBS=(cmake ninja-build g++ libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
             libcli11-dev nlohmann-json3-dev)

gpuops_preset() {
  if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    echo cuda
  else
    echo mock
  fi
}

gpuops_install_debs() {
  if ! command -v apt-get >/dev/null; then
    echo "setup: no apt-get here; install these (or point CMAKE_PREFIX_PATH at them): ${GPUOPS_DEBS[*]}" >&2
    return 1
  fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing Debian packages: ${GPUOPS_DEBS[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${GPUOPS_DEBS[@]}"
}

# gpuops_configure PRESET: configures build/PRESET, installing packages only if that fails.
gpuops_configure() {
  local preset=$1 log
  for tool in cmake ninja g++; do
    command -v "$tool" >/dev/null || { gpuops_install_debs; break; }
  done
  log=$(mktemp)
  if cmake --preset "$preset" >"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  echo "setup: configuring the $preset preset failed; installing what is missing"
  tail -5 "$log" >&2
  rm -f "$log"
  gpuops_install_debs
  cmake --preset "$preset"
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
