// Lab: what programmatic dependent launch (PDL) would save on the split-K plans' second launch.
// A stand-in for a split kernel (persistent, 128 blocks of 384 threads, streams a 32 MiB weight
// slice and writes S FP32 partials of M x N) followed by the split-K reduce (grid (N/256, M),
// block 256), timed as a pair with CUDA events: plain stream order against the reduce launched
// with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (it waits in-kernel with
// griddepcontrol.wait; the split kernel triggers its dependents when it starts). Samples of both
// modes alternate; medians printed. Build: nvcc -O3 -arch=sm_90a -o pdl_gap pdl_gap.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kM = 64, kN = 4096, kSplits = 4, kBlocks = 128, kThreads = 384;
constexpr size_t kWeightBytes = size_t{32} << 20;
constexpr int kRotate = 4;

__global__ void __launch_bounds__(kThreads) split_like(const uint4* __restrict__ weight,
                                                       float* __restrict__ partials, int trigger) {
  if (trigger) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const size_t per_block = kWeightBytes / 16 / gridDim.x;
  const uint4* w = weight + blockIdx.x * per_block;
  uint32_t acc = 0;
  for (size_t i = threadIdx.x; i < per_block; i += blockDim.x) {
    const uint4 v = w[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // Each block writes its share of the S partials.
  const size_t total = size_t{kSplits} * kM * kN;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    partials[i] = static_cast<float>(acc & 1) + 1.0f;
  }
}

__global__ void __launch_bounds__(256) reduce(const float* __restrict__ partials,
                                              float* __restrict__ out, int wait) {
  if (wait) asm volatile("griddepcontrol.wait;" ::: "memory");
  const int col = blockIdx.x * 256 + threadIdx.x, row = blockIdx.y;
  const float* p = partials + static_cast<size_t>(row) * kN + col;
  float v[kSplits];
#pragma unroll
  for (int s = 0; s < kSplits; ++s) v[s] = p[static_cast<size_t>(s) * kM * kN];
  float sum = 0.0f;
#pragma unroll
  for (int s = 0; s < kSplits; ++s) sum += v[s];
  out[static_cast<size_t>(row) * kN + col] = sum;
}

#define CHECK(x)                                                                    \
  do {                                                                              \
    cudaError_t e = (x);                                                            \
    if (e != cudaSuccess) {                                                         \
      std::printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__);       \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

int main() {
  uint4* weights;
  float *partials, *out;
  CHECK(cudaMalloc(&weights, kWeightBytes * kRotate));
  CHECK(cudaMemset(weights, 1, kWeightBytes * kRotate));
  CHECK(cudaMalloc(&partials, sizeof(float) * kSplits * kM * kN));
  CHECK(cudaMalloc(&out, sizeof(float) * kM * kN));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  // mode 0: split alone; 1: reduce alone; 2: pair, stream order; 3: pair, PDL.
  auto run = [&](int mode, int rotation) -> cudaError_t {
    const uint4* w = weights + rotation * (kWeightBytes / 16);
    const int pdl = mode == 3;
    if (mode != 1) split_like<<<kBlocks, kThreads, 0, stream>>>(w, partials, pdl);
    if (mode == 0) return cudaGetLastError();
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(kN / 256, kM, 1);
    config.blockDim = dim3(256, 1, 1);
    config.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attr;
    config.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelEx(&config, reduce, static_cast<const float*>(partials), out, pdl);
  };
  constexpr int kSamples = 200;
  std::vector<float> times[4];
  for (int warm = 0; warm < 20; ++warm) CHECK(run(warm % 4, warm % kRotate));
  CHECK(cudaStreamSynchronize(stream));
  for (int s = 0; s < kSamples; ++s) {
    for (int mode = 0; mode < 4; ++mode) {
      CHECK(cudaEventRecord(start, stream));
      CHECK(run(mode, (s * 4 + mode) % kRotate));
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      times[mode].push_back(ms * 1000.0f);
    }
  }
  const char* names[4] = {"split alone", "reduce alone", "pair, stream order", "pair, PDL"};
  for (int mode = 0; mode < 4; ++mode) {
    auto& t = times[mode];
    std::sort(t.begin(), t.end());
    std::printf("%-20s median %7.2f us  p10 %7.2f  p90 %7.2f\n", names[mode], t[t.size() / 2],
                t[t.size() / 10], t[t.size() * 9 / 10]);
  }
  return 0;
}
