// Host emulations of the FP8 kernels for the mock. Each walks the recorded grid block by block
// and computes exactly the columns that block of the device kernel owns, for the rows the kernel
// covers (at most its M tile: a launch with more rows leaves the rest unwritten, as the device
// does), at the launch's row pitches; so a launcher that passes a wrong pitch, a short grid or an
// under-sized buffer produces unwritten outputs, damaged neighbours or an error naming the kernel
// and argument. The kernels' warps assume their block, so any other block is refused; an operand
// or pitch the device would fault on (cp.async needs 16-byte rows) is refused too.
//
// Every kernel is emulated by the strict order of the scalar kernels (StrictOrderGemm): bit-exact
// for those, within the tensor-core bound for the others.
#include <cmath>
#include <vector>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/e4m3.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/fp8/fp8_args.h"
#include "ops/fp8/fp8_gemm.h"

namespace gpuops::ops::fp8 {
namespace {

template <typename Args>
absl::Status Emulate(Variant v, const HostLaunch& l, HostMemory& mem) {
  const VariantSpec& spec = kVariants[v];
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, spec.block));
  GPUOPS_ASSIGN_OR_RETURN(Args args, l.Unpack<Args>());
  uint32_t lda = args.k, ldc = args.n;
  if constexpr (std::is_same_v<Args, Fp8StridedArgs>) {
    lda = args.a_row_stride;
    ldc = args.c_row_stride;
  }
  const uint32_t rows = std::min(args.m, spec.max_m);
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(rows, args.n), args.k)));
  if (args.k % kBlock != 0) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": k=", args.k,
                                             " is not a multiple of 128 (one scale per 128 k)"));
  }
  if (lda < args.k || ldc < args.n) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": row pitches (a=", lda, ", c=", ldc,
                                             ") do not cover k=", args.k, " and n=", args.n));
  }
  if (spec.extra.stages_a) {
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.input, ArgLabel(&Args::input), 16));
    if (lda % 8 != 0) {
      return absl::InvalidArgumentError(
          StrCat(l.kernel(), ": a_row_stride=", lda, " leaves rows of A off 16-byte alignment: "
                 "the device faults on its cp.async (CUDA_ERROR_MISALIGNED_ADDRESS)"));
    }
  }
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.weight, ArgLabel(&Args::weight), 16));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.block_scale, ArgLabel(&Args::block_scale), 4));
  StridedView view{.n = args.n, .k = args.k, .lda = lda, .ldc = ldc};
  GPUOPS_ASSIGN_OR_RETURN(view.a, mem.View<uint16_t>(args.input,
                                                     PitchedElements(rows, args.k, lda),
                                                     ArgLabel(&Args::input)));
  GPUOPS_ASSIGN_OR_RETURN(view.weight, mem.View<uint8_t>(args.weight, uint64_t{args.n} * args.k,
                                                         ArgLabel(&Args::weight)));
  GPUOPS_ASSIGN_OR_RETURN(view.block_scale,
                          mem.View<float>(args.block_scale,
                                          uint64_t{ScaleRows(args.n)} * (args.k / kBlock),
                                          ArgLabel(&Args::block_scale)));
  GPUOPS_ASSIGN_OR_RETURN(view.c, mem.View<uint16_t>(args.output,
                                                     PitchedElements(rows, args.n, ldc),
                                                     ArgLabel(&Args::output)));
  ForEachNFastTile(l, rows, args.n, spec.tile_m, spec.tile_n, spec.tile_m, spec.tile_n,
                   [&](uint32_t, uint32_t tile_rows, uint32_t col0, uint32_t cols) {
                     StrictOrderGemm(view, tile_rows, col0, cols);
                   });
  return absl::OkStatus();
}

}  // namespace

void StrictOrderGemm(const StridedView& v, uint32_t rows, uint32_t col0, uint32_t cols) {
  const uint32_t kblocks = v.k / kBlock;
  std::vector<float> a(static_cast<size_t>(rows) * v.k);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t i = 0; i < v.k; ++i) a[size_t{r} * v.k + i] = Bf16ToFloat(v.a[uint64_t{r} * v.lda + i]);
  }
  std::vector<float> w(v.k);
  for (uint32_t col = col0; col < col0 + cols; ++col) {
    for (uint32_t i = 0; i < v.k; ++i) w[i] = E4m3ToFloat(v.weight[uint64_t{col} * v.k + i]);
    const float* scales = &v.block_scale[uint64_t{col / kBlock} * kblocks];
    for (uint32_t r = 0; r < rows; ++r) {
      const float* ar = &a[size_t{r} * v.k];
      float outer = 0.0f;
      for (uint32_t b = 0; b < kblocks; ++b) {
        float inner = 0.0f;
        for (uint32_t i = b * kBlock; i < (b + 1) * kBlock; ++i) inner = std::fma(ar[i], w[i], inner);
        outer = std::fma(inner, scales[b], outer);
      }
      v.c[uint64_t{r} * v.ldc + col] = FloatToBf16(outer);
    }
  }
}

void RegisterHostKernels(HostKernelRegistry& registry) {
  for (const VariantSpec& spec : kVariants.rows()) {
    const Variant v = spec.variant;
    HostKernelFn fn;
    switch (spec.shape) {
      case ArgShape::kContiguous:
        fn = [v](const HostLaunch& l, HostMemory& mem) { return Emulate<Fp8Args>(v, l, mem); };
        break;
      case ArgShape::kStrided:
        fn = [v](const HostLaunch& l, HostMemory& mem) {
          return Emulate<Fp8StridedArgs>(v, l, mem);
        };
        break;
    }
    registry.Register(spec.kernel, std::move(fn));
  }
}

}  // namespace gpuops::ops::fp8
