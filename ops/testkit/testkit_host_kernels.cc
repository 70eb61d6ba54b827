// Host emulations of the testkit kernels.
#include "gpuops/runtime/status.h"
#include "ops/testkit/testkit.h"

namespace gpuops::ops::testkit {
namespace {

absl::Status Store(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(StoreArgs args, l.Unpack<StoreArgs>());
  GPUOPS_ASSIGN_OR_RETURN(auto dst, mem.View<uint64_t>(args.dst, 1, ArgLabel(&StoreArgs::dst)));
  dst[0] = args.value;
  return absl::OkStatus();
}

absl::Status StreamRead(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(StreamReadArgs args, l.Unpack<StreamReadArgs>());
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(args.n16));
  GPUOPS_ASSIGN_OR_RETURN(
      auto src, mem.View<uint32_t>(args.src, args.n16 * 4, ArgLabel(&StreamReadArgs::src)));
  GPUOPS_ASSIGN_OR_RETURN(
      auto sink, mem.View<uint32_t>(args.sink, l.grid().x, ArgLabel(&StreamReadArgs::sink)));
  uint32_t acc = 0;
  for (uint32_t w : src) acc ^= w;
  // The device folds per block; the mock folds everything into block 0's slot.
  if (acc == args.never) sink[0] = acc;
  return absl::OkStatus();
}

}  // namespace

void RegisterHostKernels(HostKernelRegistry& registry) {
  registry.Register(kStoreKernel, Store);
  registry.Register(kNoopKernel,
                    [](const HostLaunch& l, HostMemory&) { return l.Unpack<NoArgs>().status(); });
  registry.Register(kStreamReadKernel, StreamRead);
}

}  // namespace gpuops::ops::testkit
