// Host emulations of the common kernels: each walks the recorded grid and block exactly as the
// device code indexes (cuda/common_layout.h), so a wrong grid or block leaves elements unwritten.
#include <cmath>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/status.h"
#include "ops/common/common_ops.h"
#include "ops/common/cuda/common_layout.h"

namespace gpuops::ops::common {
namespace {

// Calls fn(i) for every element index the launched threads of an element-wise kernel own.
template <typename Fn>
void ForEachElement(const HostLaunch& l, uint64_t n, Fn fn) {
  for (uint64_t b = 0; b < l.grid().x; ++b) {
    for (uint64_t t = 0; t < l.block().x; ++t) {
      const uint64_t first = (b * kThreads + t) * kElementsPerThread;
      for (uint64_t j = 0; j < kElementsPerThread; ++j) {
        if (first + j < n) fn(first + j);
      }
    }
  }
}

absl::Status ScaledAdd(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(ScaledAddArgs args, l.Unpack<ScaledAddArgs>());
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(args.n));
  GPUOPS_ASSIGN_OR_RETURN(auto out,
                          mem.View<uint16_t>(args.out, args.n, ArgLabel(&ScaledAddArgs::out)));
  GPUOPS_ASSIGN_OR_RETURN(auto delta,
                          mem.View<uint16_t>(args.delta, args.n, ArgLabel(&ScaledAddArgs::delta)));
  ForEachElement(l, args.n, [&](uint64_t i) {
    out[i] = FloatToBf16(std::fma(args.scale, Bf16ToFloat(delta[i]), Bf16ToFloat(out[i])));
  });
  return absl::OkStatus();
}

absl::Status Fill(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(FillArgs args, l.Unpack<FillArgs>());
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(args.n));
  GPUOPS_ASSIGN_OR_RETURN(auto out, mem.View<uint16_t>(args.out, args.n, ArgLabel(&FillArgs::out)));
  ForEachElement(l, args.n, [&](uint64_t i) { out[i] = static_cast<uint16_t>(args.value); });
  return absl::OkStatus();
}

absl::Status Copy(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(CopyArgs args, l.Unpack<CopyArgs>());
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(args.n));
  GPUOPS_ASSIGN_OR_RETURN(auto dst, mem.View<uint16_t>(args.dst, args.n, ArgLabel(&CopyArgs::dst)));
  GPUOPS_ASSIGN_OR_RETURN(auto src, mem.View<uint16_t>(args.src, args.n, ArgLabel(&CopyArgs::src)));
  ForEachElement(l, args.n, [&](uint64_t i) { dst[i] = src[i]; });
  return absl::OkStatus();
}

}  // namespace

void RegisterHostKernels(HostKernelRegistry& registry) {
  registry.Register(kScaledAddKernel, ScaledAdd);
  registry.Register(kFillKernel, Fill);
  registry.Register(kCopyKernel, Copy);
}

}  // namespace gpuops::ops::common
