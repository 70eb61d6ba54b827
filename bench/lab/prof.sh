#!/usr/bin/env bash
# Nsight Compute on the production gemv (gate_up at M=16 and M=1), then the decode shapes
# through gpuops perf with 10 launches per sample. Runs on the GPU machine over a tree staged by
# scripts/gpu_stage.sh; writes under $OUT.
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.gpu/lib
export GPUOPS_CUBLASLT=$(find /usr/local/cuda*/ -name 'libcublasLt.so.13*' 2>/dev/null | head -1)
for spec in 16,28672,4096 1,28672,4096; do
  ncu --clock-control none --kernel-name regex:gemv --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section SchedulerStats \
    .gpu/bin/gpuops perf --shapes none --shape $spec --iterations 20 > $OUT/ncu_$spec.txt 2>&1
  echo "== $spec"; grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|L2 Cache Throughput|L1/TEX Cache Throughput|Achieved Occupancy|Warp Cycles Per Issued|Mem Busy|Max Bandwidth|Mem Pipes|Stall|Eligible|Issued Warp" $OUT/ncu_$spec.txt | head -24
done
.gpu/bin/gpuops perf --shapes decode --batch 10 --csv $OUT/perf_decode_b10.csv > $OUT/perf_decode_b10.txt 2>&1
grep "^| \|roof" $OUT/perf_decode_b10.txt
