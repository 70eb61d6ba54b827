# Sourced by scripts/run.sh and scripts/test.sh: installs the Debian packages the build needs
# when they are missing (apt-get as root, else sudo), then checks the tools are there.
set -euo pipefail

GPUOPS_DEBS=(cmake ninja-build g++ libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
             libcli11-dev nlohmann-json3-dev)

gpuops_missing_debs() {
  local missing=()
  for pkg in "${GPUOPS_DEBS[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  echo "${missing[@]:-}"
}

gpuops_setup() {
  if ! command -v dpkg-query >/dev/null; then
    echo "setup: not a Debian system; make sure these are installed: ${GPUOPS_DEBS[*]}" >&2
    return 0
  fi
  local missing
  missing=$(gpuops_missing_debs)
  if [ -n "$missing" ]; then
    echo "setup: installing missing packages: $missing"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
  fi
  for tool in cmake ninja g++; do
    command -v "$tool" >/dev/null || { echo "setup: $tool not found" >&2; return 1; }
  done
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
gpuops_setup
