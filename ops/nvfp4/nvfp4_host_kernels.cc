// Host emulations of the NVFP4 kernels for the mock. Each walks the recorded N-fast grid block by
// block and computes exactly the tile that block of the device kernel owns, so a launcher that
// swaps grid axes, passes a wrong ldb or under-sizes a buffer produces unwritten outputs or an
// error naming the kernel and argument. The kernels' warps assume their block, so any other block
// is refused; a misaligned operand or k-row is refused as the device would fault on it.
//
// Lossless kernels: FP32 sums in k order of a · (e2m1 · scale), times the global scale (within
// the tensor-core bound, and identical for every lossless kernel). FP8 kernels: A rounded to
// E4M3 (a row with a magnitude beyond 448 comes out NaN), each 16-k group summed in FP32 and
// folded into the accumulator times its scale, as the device does.
#include <cmath>
#include <limits>
#include <vector>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/nvfp4/nvfp4_args.h"
#include "ops/nvfp4/nvfp4_format.h"
#include "ops/nvfp4/nvfp4_gemm.h"

namespace gpuops::ops::nvfp4 {
namespace {

struct GemmView {
  absl::Span<const uint16_t> a;
  absl::Span<const uint8_t> packed;
  absl::Span<const uint8_t> scales;
  absl::Span<uint16_t> c;
  float scale2 = 1.0f;
  uint32_t m = 0, n = 0, k = 0, ldb = 0;

  uint8_t Nibble(uint32_t row_k, uint32_t col) const {
    const uint8_t byte = packed[uint64_t{row_k} * (ldb / 2) + col / 2];
    return col % 2 == 0 ? byte & 0x0f : byte >> 4;
  }
  float Scale(uint32_t row_k, uint32_t col) const {
    return E4m3ToFloat(scales[uint64_t{row_k / 16} * ldb + col]);
  }
};

// The operands of a launch, checked as the device would meet them.
template <typename Args>
absl::StatusOr<GemmView> ViewGemm(const HostLaunch& l, HostMemory& mem, const Args& args,
                                  uint32_t ldb) {
  GemmView g{.scale2 = args.scale2, .m = args.m, .n = args.n, .k = args.k, .ldb = ldb};
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(g.m, g.n), g.k)));
  if (g.k % 16 != 0) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": k=", g.k, " is not a multiple of 16 (one scale per 16 k)"));
  }
  if (ldb < g.n || ldb % 32 != 0) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": the weight's k-rows are ", ldb, " columns apart (n=", g.n,
               "): fewer than n, or not a multiple of 32, and the device faults on the "
               "misaligned 16-byte loads (CUDA_ERROR_MISALIGNED_ADDRESS)"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.a, ArgLabel(&Args::a), 16));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.b_packed, ArgLabel(&Args::b_packed), 16));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.b_scale, ArgLabel(&Args::b_scale), 16));
  GPUOPS_ASSIGN_OR_RETURN(g.a, mem.View<uint16_t>(args.a, uint64_t{g.m} * g.k, ArgLabel(&Args::a)));
  GPUOPS_ASSIGN_OR_RETURN(g.packed, mem.View<uint8_t>(args.b_packed, uint64_t{g.k} * (ldb / 2),
                                                      ArgLabel(&Args::b_packed)));
  GPUOPS_ASSIGN_OR_RETURN(g.scales, mem.View<uint8_t>(args.b_scale, uint64_t{g.k / 16} * ldb,
                                                      ArgLabel(&Args::b_scale)));
  GPUOPS_ASSIGN_OR_RETURN(g.c, mem.View<uint16_t>(args.c, uint64_t{g.m} * g.n, ArgLabel(&Args::c)));
  return g;
}

// One block's tile of a lossless kernel.
void LosslessTile(const GemmView& g, uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols) {
  std::vector<float> w(static_cast<size_t>(g.k) * cols);  // [k][column], dequantized
  for (uint32_t i = 0; i < g.k; ++i) {
    for (uint32_t j = 0; j < cols; ++j) {
      w[size_t{i} * cols + j] = E2m1ToFloat(g.Nibble(i, col0 + j)) * g.Scale(i, col0 + j);
    }
  }
  std::vector<float> acc(cols);
  for (uint32_t r = 0; r < rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    const uint16_t* arow = &g.a[size_t{row0 + r} * g.k];
    for (uint32_t i = 0; i < g.k; ++i) {
      const float av = Bf16ToFloat(arow[i]);
      const float* wk = &w[size_t{i} * cols];
      for (uint32_t j = 0; j < cols; ++j) {
        const float product = av * wk[j];
        acc[j] = acc[j] + product;
      }
    }
    for (uint32_t j = 0; j < cols; ++j) {
      g.c[size_t{row0 + r} * g.n + col0 + j] = FloatToBf16(acc[j] * g.scale2);
    }
  }
}

// One block's tile of an FP8 kernel.
void Fp8Tile(const GemmView& g, uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols) {
  std::vector<float> codes(static_cast<size_t>(g.k) * cols);  // [k][column], e2m1 values
  std::vector<float> scales(static_cast<size_t>(g.k / 16) * cols);
  for (uint32_t i = 0; i < g.k; ++i) {
    for (uint32_t j = 0; j < cols; ++j) {
      codes[size_t{i} * cols + j] = E2m1ToFloat(g.Nibble(i, col0 + j));
      if (i % 16 == 0) scales[size_t{i / 16} * cols + j] = g.Scale(i, col0 + j);
    }
  }
  std::vector<float> a8(g.k);
  std::vector<float> acc(cols);
  std::vector<float> part(cols);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint16_t* arow = &g.a[size_t{row0 + r} * g.k];
    bool in_range = true;
    for (uint32_t i = 0; i < g.k; ++i) {
      const float x = Bf16ToFloat(arow[i]);
      in_range = in_range && std::fabs(x) <= kFp8ActivationLimit;
      a8[i] = E4m3ToFloat(FloatToE4m3(x));
    }
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (uint32_t k0 = 0; k0 < g.k; k0 += 16) {
      std::fill(part.begin(), part.end(), 0.0f);
      for (uint32_t i = k0; i < k0 + 16; ++i) {
        const float* ck = &codes[size_t{i} * cols];
        for (uint32_t j = 0; j < cols; ++j) {
          const float product = a8[i] * ck[j];
          part[j] = part[j] + product;
        }
      }
      const float* sk = &scales[size_t{k0 / 16} * cols];
      for (uint32_t j = 0; j < cols; ++j) acc[j] = std::fma(part[j], sk[j], acc[j]);
    }
    for (uint32_t j = 0; j < cols; ++j) {
      const float v = in_range ? acc[j] * g.scale2 : std::numeric_limits<float>::quiet_NaN();
      g.c[size_t{row0 + r} * g.n + col0 + j] = FloatToBf16(v);
    }
  }
}

template <typename Args>
absl::Status Emulate(Variant v, const HostLaunch& l, HostMemory& mem) {
  const VariantSpec& spec = kVariants[v];
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, spec.block));
  GPUOPS_ASSIGN_OR_RETURN(Args args, l.Unpack<Args>());
  uint32_t ldb = args.n;
  if constexpr (std::is_same_v<Args, Nvfp4LdbArgs>) ldb = args.ldb;
  GPUOPS_ASSIGN_OR_RETURN(GemmView g, ViewGemm(l, mem, args, ldb));
  const bool fp8 = spec.accuracy == Accuracy::kFp8Activations;
  ForEachNFastTile(l, g.m, g.n, spec.tile_m, spec.tile_n, spec.tile_m, spec.tile_n,
                   [&](uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols) {
                     if (fp8) {
                       Fp8Tile(g, row0, rows, col0, cols);
                     } else {
                       LosslessTile(g, row0, rows, col0, cols);
                     }
                   });
  return absl::OkStatus();
}

}  // namespace

void RegisterHostKernels(HostKernelRegistry& registry) {
  for (const VariantSpec& spec : kVariants.rows()) {
    const Variant v = spec.variant;
    HostKernelFn fn;
    switch (spec.shape) {
      case ArgShape::kArgs:
        fn = [v](const HostLaunch& l, HostMemory& mem) { return Emulate<Nvfp4Args>(v, l, mem); };
        break;
      case ArgShape::kLdb:
        fn = [v](const HostLaunch& l, HostMemory& mem) {
          return Emulate<Nvfp4LdbArgs>(v, l, mem);
        };
        break;
    }
    // n128 and n128_ldb share one kernel (and one emulation).
    registry.Register(spec.kernel, std::move(fn));
  }
}

}  // namespace gpuops::ops::nvfp4
