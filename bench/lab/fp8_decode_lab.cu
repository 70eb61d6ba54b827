// FP8 decode laboratory (not part of the build): the register-load weight-rows body
// (fp8_device::GemmWeightRowsLdg, tc_m8_ldg in production) under other warp counts, batch depths
// and blocks an SM, against a streaming read of the same bytes, per launch and 10 back to back,
// samples interleaved round-robin across candidates. Outputs are compared with the production
// configuration's. Question (session 39): does more resident warps a multiprocessor (all of qkv's
// 384 tiles at once, a smaller tail of conversion after the last bytes land) close the M = 1 gap
// to the read on qkv / o / down (bench/NOTES.md sessions 20, 24, 28)? Answer (H100,
// bench/results/2026-12-07-s39-h100-fp8-decode-lab.csv): not on o / down; past one round of
// tc_m8_ldg's 2 blocks an SM, 4 warps at 4 blocks an SM (now tc_m8_ldg_w4) ran 1.02-1.09x faster.
// Session 41 (H100, bench/results/2026-12-07-s41-h100-fp8-decode-lab.csv): the M <= 16 forms
// m16_w8u1_b2 / m16_w4u1_b4 beat production's tc_m16 here, became tc_m16_ldg / _w4, and on
// held-out shapes through `gpuops perf` only tc_m16_ldg up to 264 tiles held up (bench/NOTES.md).
// Build: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iops/fp8/cuda -Iops -Iruntime
//        -I. bench/lab/fp8_decode_lab.cu -o /tmp/fp8_decode_lab
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "fp8_device.cuh"
#include "lab_check.h"

using fp8_device::bf16;
using gpuops::ops::fp8::LdgRowsTile;

template <class Tile, bool kOverlap>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSm)
    Ldg(const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
        const float* __restrict__ scale, bf16* __restrict__ output, uint32_t m, uint32_t n,
        uint32_t k) {
  fp8_device::GemmWeightRowsLdg<Tile, kOverlap>(input, weight, scale, output, m, n, k, k, n);
}

__global__ void Stream(const uint4* __restrict__ p, size_t n16, uint32_t* sink) {
  uint32_t x = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n16;
       i += size_t{gridDim.x} * blockDim.x) {
    uint4 v;
    asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p + i));
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9e3779b9u) *sink = x;
}

using KernelFn = void (*)(const bf16*, const uint8_t*, const float*, bf16*, uint32_t, uint32_t,
                          uint32_t);
struct Candidate {
  const char* name;
  KernelFn fn;
  uint32_t threads, smem, max_m;
  bool overlap;  // launched with programmatic stream serialization (weights read before the wait)
};
template <class Tile, bool kOverlap = false>
Candidate Make(const char* name) {
  return {name, Ldg<Tile, kOverlap>, Tile::kThreads, Tile::kSharedBytes, Tile::kMaxM, kOverlap};
}

static float Median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct Shape { const char* name; uint32_t n, k; };
  const std::vector<Shape> shapes = {
      {"qkv", 6144, 4096},      {"o", 4096, 4096},         {"down", 4096, 14336},
      {"gate_up", 28672, 4096}, {"q7b_down", 3584, 18944}, {"5120sq", 5120, 5120},
      {"2048x8192", 2048, 8192}, {"1536x8960", 1536, 8960}, {"8192x3072", 8192, 3072}};
  // Session 39's list was prod_w8u2, w8u1_b3, w8u1_b4, w4u2_b4, w4u1_b8, w4u1_b6, w16u1_b2
  // (bench/NOTES.md); this one adds two activation tiles (M <= 16), where production runs tc_m16
  // (TMA, persistent): time it beside this lab with `gpuops perf --op 'fp8\.tc_m16'`.
  std::vector<Candidate> cands = {
      Make<LdgRowsTile<1, 8, 2, 2>>("ldg_w8u2"),     Make<LdgRowsTile<1, 4, 2, 4>>("ldg_w4u2"),
      Make<LdgRowsTile<1, 8, 1, 3>>("w8u1_b3"),      Make<LdgRowsTile<2, 8, 2, 2>>("m16_w8u2_b2"),
      Make<LdgRowsTile<2, 4, 2, 4>>("m16_w4u2_b4"),  Make<LdgRowsTile<2, 8, 1, 2>>("m16_w8u1_b2"),
      Make<LdgRowsTile<2, 4, 1, 4>>("m16_w4u1_b4"),
      // Session 40: programmatic dependent launch (each launch streams its weights while the
      // previous one finishes; changes only the back-to-back column).
      Make<LdgRowsTile<1, 8, 2, 2>, true>("ldg_w8u2_pdl"), Make<LdgRowsTile<1, 4, 2, 4>, true>("ldg_w4u2_pdl"),
      Make<LdgRowsTile<2, 8, 1, 2>, true>("m16_w8u1_b2_pdl"),
  };
  for (auto& c : cands) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, c.fn));
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.fn, c.threads, c.smem));
    std::printf("# %s: %u threads, %d registers, %zu local bytes, %d blocks an SM\n", c.name,
                c.threads, a.numRegs, a.localSizeBytes, blocks);
  }
  size_t max_w = 0;
  for (auto& s : shapes) max_w = std::max(max_w, size_t{s.n} * s.k);
  const size_t kRotateBytes = 256u << 20;  // several times the L2
  std::vector<uint8_t> hw(max_w);
  uint32_t st = 12345;
  for (auto& b : hw) {
    st = st * 1664525u + 1013904223u;
    b = uint8_t(st >> 24);
    if ((b & 0x7f) == 0x7f) b ^= 1;  // no NaN
  }
  const int copies = int(std::max<size_t>(2, kRotateBytes / (4096ull * 4096) + 1));
  std::vector<uint8_t*> wbuf;
  std::vector<float*> sbuf;
  for (int c = 0; c < 16; ++c) {
    uint8_t* p;
    CK(cudaMalloc(&p, max_w));
    CK(cudaMemcpy(p, hw.data(), max_w, cudaMemcpyHostToDevice));
    wbuf.push_back(p);
    float* s;
    const size_t ns = max_w / 128 / 128 + 4096;
    std::vector<float> hs(ns);
    for (size_t i = 0; i < ns; ++i) hs[i] = 0.001f * float(1 + (i * 37) % 97);
    CK(cudaMalloc(&s, ns * 4));
    CK(cudaMemcpy(s, hs.data(), ns * 4, cudaMemcpyHostToDevice));
    sbuf.push_back(s);
  }
  (void)copies;
  bf16* act;
  std::vector<bf16> ha(16 * 20480);
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = __float2bfloat16(float(int(i * 7919 % 201) - 100) / 64.f);
  CK(cudaMalloc(&act, ha.size() * 2));
  CK(cudaMemcpy(act, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  bf16* out;
  CK(cudaMalloc(&out, 16 * 131072 * 2));
  uint32_t* sink;
  CK(cudaMalloc(&sink, 4));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("shape,m,kernel,per_launch_us,batch10_us,of_read_1,of_read_10,max_rel_err\n");
  for (const Shape& sh : shapes) {
    const size_t wbytes = size_t{sh.n} * sh.k;
    const int ncopy = int(std::min<size_t>(16, std::max<size_t>(3, kRotateBytes / wbytes + 1)));
    for (uint32_t m : {1u, 8u, 12u, 16u}) {
      // Launchers: index 0 the read, then the candidates.
      std::vector<std::function<void(int)>> launch;
      launch.push_back([&](int c) {
        Stream<<<sms * 8, 256>>>(reinterpret_cast<const uint4*>(wbuf[c]), wbytes / 16, sink);
      });
      std::vector<const Candidate*> runs;  // the candidates that cover m rows
      for (auto& cd : cands) {
        if (cd.max_m < m) continue;
        runs.push_back(&cd);
        launch.push_back([&, cd](int c) {
          cudaLaunchConfig_t cfg{};
          cfg.gridDim = dim3((sh.n + 15) / 16);
          cfg.blockDim = dim3(cd.threads);
          cfg.dynamicSmemBytes = cd.smem;
          cudaLaunchAttribute attr{};
          attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
          attr.val.programmaticStreamSerializationAllowed = 1;
          cfg.attrs = &attr;
          cfg.numAttrs = cd.overlap ? 1 : 0;
          CK(cudaLaunchKernelEx(&cfg, cd.fn, static_cast<const bf16*>(act),
                                static_cast<const uint8_t*>(wbuf[c]),
                                static_cast<const float*>(sbuf[c]), out, m, sh.n, sh.k));
        });
      }
      std::vector<std::vector<float>> t1(launch.size()), t10(launch.size());
      int rot = 0;
      for (int r = 0; r < 25; ++r) {
        for (size_t i = 0; i < launch.size(); ++i) {
          for (int batch : {1, 10}) {
            launch[i](rot++ % ncopy);  // warm, and leaves other bytes in L2
            CK(cudaEventRecord(e0));
            for (int j = 0; j < batch; ++j) launch[i](rot++ % ncopy);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r > 0) (batch == 1 ? t1 : t10)[i].push_back(ms * 1000.f / batch);
          }
        }
      }
      CK(cudaGetLastError());
      const float r1 = Median(t1[0]), r10 = Median(t10[0]);
      std::printf("%s,%u,read,%.2f,%.2f,1,1,-\n", sh.name, m, r1, r10);
      std::vector<bf16> ref;
      for (size_t i = 1; i < launch.size(); ++i) {
        launch[i](0);
        CK(cudaDeviceSynchronize());
        std::vector<bf16> got(size_t{m} * sh.n);
        CK(cudaMemcpy(got.data(), out, got.size() * 2, cudaMemcpyDeviceToHost));
        double err = 0;
        if (ref.empty()) ref = got;
        for (size_t j = 0; j < got.size(); ++j) {
          const double a = __bfloat162float(ref[j]), b = __bfloat162float(got[j]);
          err = std::max(err, std::fabs(a - b) / (std::fabs(a) + 1e-3));
        }
        const float a1 = Median(t1[i]), a10 = Median(t10[i]);
        std::printf("%s,%u,%s,%.2f,%.2f,%.3f,%.3f,%.1e\n", sh.name, m, runs[i - 1]->name, a1,
                    a10, r1 / a1, r10 / a10, err);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
