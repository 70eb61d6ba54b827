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

absl::Status TestKernels::StoreU64(DeviceSpan dst, uint64_t value, StreamHandle stream) const {
  GPUOPS_RETURN_IF_ERROR(RequireAligned(kStoreKernel, "dst", dst.ptr(), 8, "one 8-byte store"));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(kStoreKernel, "dst", dst, 8, "one u64"));
  return store_.Launch(*gpu_, {{1, 1, 1}, {32, 1, 1}, 0}, {.dst = dst.ptr(), .value = value})
      .launch(stream);
}

absl::Status TestKernels::Noop(StreamHandle stream) const {
  return noop_.Launch(*gpu_, {{1, 1, 1}, {32, 1, 1}, 0}, {}).launch(stream);
}

absl::Status TestKernels::StreamRead(DeviceSpan src, uint32_t blocks, DeviceSpan sink,
                                     StreamHandle stream) const {
  if (src.unchecked()) return ArgumentError(kStreamReadKernel, "src must be a sized span");
  GPUOPS_RETURN_IF_ERROR(
      RequireMultiple(kStreamReadKernel, "src bytes", src.bytes(), 16, "16-byte loads"));
  GPUOPS_RETURN_IF_ERROR(RequireAligned(kStreamReadKernel, "src", src.ptr(), 16, "16-byte loads"));
  GPUOPS_RETURN_IF_ERROR(RequireAligned(kStreamReadKernel, "sink", sink.ptr(), 4, "u32 slots"));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(kStreamReadKernel, "sink", sink, uint64_t{blocks} * 4,
                                       StrCat(blocks, " blocks' u32 slots")));
  return stream_read_
      .Launch(*gpu_, {{blocks, 1, 1}, {kStreamThreads, 1, 1}, 0},
              {.src = src.ptr(), .n16 = src.bytes() / 16, .never = 0x9e3779b9u, .sink = sink.ptr()})
      .launch(stream);
}

}  // namespace gpuops::ops::testkit
