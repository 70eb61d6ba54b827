#include "ops/testkit/testkit.h"

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family_kit.h"
#include "ops/testkit/cuda/testkit_layout.h"

namespace gpuops::ops::testkit {

absl::StatusOr<TestKernels> TestKernels::Load(GpuBackend& gpu) {
  TestKernels k;
  k.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(k.module_,
                          LoadFamilyModule(gpu, EmbeddedModuleImage(), &RegisterHostKernels));
  GPUOPS_ASSIGN_OR_RETURN(k.store_, RequireKernel<StoreArgs>(k.module_, "testkit", kStoreKernel));
  GPUOPS_ASSIGN_OR_RETURN(k.noop_, RequireKernel<NoArgs>(k.module_, "testkit", kNoopKernel));
  GPUOPS_ASSIGN_OR_RETURN(k.stream_read_,
                          RequireKernel<StreamReadArgs>(k.module_, "testkit", kStreamReadKernel));
  return k;
}

absl::Status TestKernels::StoreU64(DevicePtr dst, uint64_t value, StreamHandle stream) const {
  return store_.Launch(*gpu_, {{1, 1, 1}, {32, 1, 1}, 0}, {.dst = dst, .value = value})
      .launch(stream);
}

absl::Status TestKernels::Noop(StreamHandle stream) const {
  return noop_.Launch(*gpu_, {{1, 1, 1}, {32, 1, 1}, 0}, {}).launch(stream);
}

absl::Status TestKernels::StreamRead(DevicePtr src, uint64_t bytes, uint32_t blocks, DevicePtr sink,
                                     StreamHandle stream) const {
  if (bytes % 16 != 0) {
    return absl::InvalidArgumentError(
        StrCat(kStreamReadKernel, ": bytes=", bytes, " is not a multiple of 16"));
  }
  return stream_read_
      .Launch(*gpu_, {{blocks, 1, 1}, {kStreamThreads, 1, 1}, 0},
              {.src = src, .n16 = bytes / 16, .never = 0x9e3779b9u, .sink = sink})
      .launch(stream);
}

}  // namespace gpuops::ops::testkit
