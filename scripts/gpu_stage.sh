#!/usr/bin/env bash
# Builds the cuda preset here and stages what a GPU session needs into .gpu/ (git-ignored):
# the test, benchmark and tool executables (stripped), the fatbins, the stand-in HIP runtime, and
# the shared libraries they load that the GPU machine lacks (Debian's Abseil and Benchmark). scripts/gpu_session.sh runs
# them there; the device tool carries .gpu along.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset cuda >/dev/null
cmake --build --preset cuda
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/fatbin
while IFS= read -r exe; do
  cp "$exe" .gpu/bin/ && strip .gpu/bin/"$(basename "$exe")"
done < <(find build/cuda \( -path '*/CMakeFiles' -prune \) -o -type f -executable \
           \( -name '*_test' -o -name 'gpuops' -o -name 'gpuops_sigtool' -o -name 'launch_overhead' \
              -o -name 'cuda_launch_overhead' -o -name '*_bench' \) -print)
find build/cuda -name '*.fatbin' -exec cp {} .gpu/fatbin/ \;
# The stand-in HIP runtime the HIP backend's tests load (gpu_session.sh points them at it).
find build/cuda -name 'libgpuops_hip_standin.so' -exec cp {} .gpu/lib/ \;
for exe in .gpu/bin/* .gpu/lib/libgpuops_hip_standin.so; do ldd "$exe"; done | awk '/=> \// {print $3}' | sort -u |
  grep -E 'libabsl|libbenchmark' | xargs -r -I{} cp -L {} .gpu/lib/
du -sh .gpu .gpu/*
