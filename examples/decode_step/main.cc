// A decode step of one Llama-3-8B layer's four GEMMs (M = 1) through gpuops as a library: the
// default backend (CUDA where a GPU and this build's kernels are, else the mock executing on the
// CPU), the dense dispatcher, event timing, and every output checked against a float64 CPU
// reference within the tensor-core bound (|out - ref| <= ulp(ref) + 2^-14 sum|a b|).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gpuops/backends/default_registry.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "ops/dense/dense_gemm.h"

namespace {

using gpuops::DeviceBuffer;
using gpuops::ops::dense::DenseGemm;
using gpuops::ops::dense::GemmArgs;

struct Projection {
  const char* name;
  uint32_t n;
  uint32_t k;
};

// BF16 values in [-1, 1) from a fixed linear congruential sequence.
std::vector<uint16_t> Random(size_t count, uint64_t seed) {
  std::vector<uint16_t> out(count);
  for (uint16_t& v : out) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v = gpuops::FloatToBf16(static_cast<float>(seed >> 40) / float(1 << 23) - 1.0f);
  }
  return out;
}

int Fail(const char* what, const absl::Status& s) {
  std::fprintf(stderr, "decode_step: %s: %s\n", what, std::string(s.message()).c_str());
  return 1;
}

}  // namespace

int main() {
  auto gpu = gpuops::CreateBackend("auto");
  if (!gpu.ok()) return Fail("no backend", gpu.status());
  auto dense = DenseGemm::Load(**gpu);
  if (!dense.ok()) return Fail("loading the dense family", dense.status());
  std::printf("decode step of a Llama-3-8B layer on %s (%s)\n", std::string((*gpu)->name()).c_str(),
              (*gpu)->device_info().name.c_str());

  const Projection layer[] = {
      {"qkv", 6144, 4096}, {"o", 4096, 4096}, {"gate_up", 28672, 4096}, {"down", 4096, 14336}};
  int failures = 0;
  double total_us = 0;
  for (const Projection& p : layer) {
    const std::vector<uint16_t> a = Random(p.k, 2 * p.n + 1);
    const std::vector<uint16_t> b = Random(uint64_t{p.n} * p.k, 2 * p.k);
    auto da = DeviceBuffer::FromHost<uint16_t>(**gpu, a);
    auto db = DeviceBuffer::FromHost<uint16_t>(**gpu, b);
    auto dc = DeviceBuffer::Allocate(**gpu, uint64_t{p.n} * 2);
    if (!da.ok() || !db.ok() || !dc.ok()) return Fail("uploading", da.status());
    GemmArgs args{.a = da->span(), .b = db->span(), .c = dc->span(), .m = 1, .n = p.n, .k = p.k};
    auto variant = dense->Pick(args);
    if (!variant.ok()) return Fail(p.name, variant.status());

    auto start = gpuops::MakeEvent(**gpu);
    auto end = gpuops::MakeEvent(**gpu);
    if (!start.ok() || !end.ok()) return Fail("events", start.status());
    if (absl::Status s = dense->Gemm(args); !s.ok()) return Fail(p.name, s);  // warm-up
    (void)(*gpu)->RecordEvent(start->get());
    if (absl::Status s = dense->Gemm(args); !s.ok()) return Fail(p.name, s);
    (void)(*gpu)->RecordEvent(end->get());
    auto ms = (*gpu)->ElapsedMs(start->get(), end->get());
    if (!ms.ok()) return Fail("timing", ms.status());
    auto c = dc->ToHost<uint16_t>();
    if (!c.ok()) return Fail("downloading", c.status());

    double max_err = 0;
    int bad = 0;
    for (uint32_t j = 0; j < p.n; ++j) {
      double ref = 0;
      double abs_sum = 0;
      for (uint32_t i = 0; i < p.k; ++i) {
        const double prod =
            double{gpuops::Bf16ToFloat(a[i])} * gpuops::Bf16ToFloat(b[uint64_t{j} * p.k + i]);
        ref += prod;
        abs_sum += std::fabs(prod);
      }
      const double got = gpuops::Bf16ToFloat((*c)[j]);
      const double err = std::fabs(got - ref);
      const double bound = gpuops::Bf16Ulp(static_cast<float>(ref)) + std::ldexp(abs_sum, -14);
      max_err = std::max(max_err, err);
      if (!(err <= bound)) ++bad;
    }
    failures += bad;
    total_us += *ms * 1e3;
    std::printf("  %-8s M=1 N=%-6u K=%-6u %-14s %10.1f us  max err %.3g  %s\n", p.name, p.n, p.k,
                std::string(gpuops::ops::dense::kVariants[*variant].name).c_str(), *ms * 1e3,
                max_err, bad == 0 ? "PASS" : "FAIL");
  }
  std::printf("layer: %.1f us, %s\n", total_us,
              failures == 0 ? "every output within its bound" : "outputs out of bounds");
  return failures == 0 ? 0 : 1;
}
