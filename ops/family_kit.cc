#include "ops/family_kit.h"

#include <mutex>
#include <set>

#include "gpuops/runtime/status.h"

namespace gpuops::ops {

std::string_view ToString(Accuracy a) {
  switch (a) {
    case Accuracy::kStrictOrder:
      return "bit-exact strict order";
    case Accuracy::kTensorCore:
      return "tensor-core bound";
    case Accuracy::kBitIdentical:
      return "bit-identical to its reference pair";
    case Accuracy::kFp8Activations:
      return "A rounded to E4M3, then the tensor-core bound";
  }
  return "?";
}

absl::Status ArgumentError(std::string_view kernel, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(kernel, ": ", what));
}

absl::Status NotShipped(std::string_view kernel, const DeviceInfo& device) {
  return absl::FailedPreconditionError(
      StrCat(kernel, ": not shipped for ", device.arch_name(), " by this build"));
}

absl::Status RequireMultiple(std::string_view kernel, std::string_view name, uint64_t value,
                             uint64_t multiple, std::string_view why) {
  if (multiple == 0 || value % multiple == 0) return absl::OkStatus();
  return ArgumentError(
      kernel, StrCat(name, "=", value, " is not a multiple of ", multiple, " (", why, ")"));
}

absl::Status RequireAligned(std::string_view kernel, std::string_view name, DevicePtr ptr,
                            uint64_t alignment, std::string_view why) {
  if (alignment == 0 || ptr.address() % alignment == 0) return absl::OkStatus();
  return ArgumentError(kernel, StrCat(name, " at 0x", Hex(ptr.address()), " is not ", alignment,
                                      "-byte aligned (", why, ")"));
}

absl::Status RequireExtent(std::string_view kernel, std::string_view name, DeviceSpan span,
                           uint64_t need, std::string_view what) {
  if (span.unchecked() || span.bytes() >= need) return absl::OkStatus();
  return ArgumentError(kernel,
                       StrCat(name, " holds ", span.bytes(), " bytes, ", what, " need ",
                              need == UINT64_MAX ? std::string("more than 2^64") : StrCat(need)));
}

OperandBytes OperandBytesOf(std::string_view name, DeviceSpan span, uint64_t rows,
                            uint64_t row_bytes, uint64_t pitch) {
  if (span.unchecked() || span.is_null()) return OperandBytes{.name = name};
  return OperandBytes{name, span.address(), rows, row_bytes, pitch};
}

bool OperandsMeet(const OperandBytes& a, const OperandBytes& b) {
  using Wide = __int128;
  if (a.rows == 0 || a.row_bytes == 0 || b.rows == 0 || b.row_bytes == 0) return false;
  const auto end = [](const OperandBytes& o) {
    return Wide{o.address} + Wide{o.rows - 1} * o.pitch + o.row_bytes;
  };
  if (end(a) <= Wide{b.address} || end(b) <= Wide{a.address}) return false;
  if (a.rows == 1 && b.rows == 1) return true;
  // One pitch P for both: row r of a and row s of b meet iff -b.row_bytes < d + (s - r) P <
  // a.row_bytes, d = b.address - a.address; the smallest admissible s - r decides.
  const uint64_t pitch = a.rows > 1 ? a.pitch : b.pitch;
  const bool one_pitch = (a.rows == 1 || a.pitch == pitch) && (b.rows == 1 || b.pitch == pitch);
  if (!one_pitch || pitch == 0 || a.row_bytes > pitch || b.row_bytes > pitch) return true;
  const Wide p = pitch, d = Wide{b.address} - Wide{a.address};
  const Wide num = -Wide{b.row_bytes} - d;  // j must exceed num / p
  const Wide floor_div = num >= 0 ? num / p : -((-num + p - 1) / p);
  const Wide j = std::max(floor_div + 1, -(Wide{a.rows} - 1));
  return j <= Wide{b.rows} - 1 && d + j * p < Wide{a.row_bytes};
}

absl::Status RequireDisjoint(std::string_view kernel, absl::Span<const OperandBytes> written,
                             absl::Span<const OperandBytes> read) {
  const auto describe = [](const OperandBytes& o) {
    return o.rows > 1 ? StrCat(o.name, " (0x", Hex(o.address), ", ", o.rows, " rows of ",
                               o.row_bytes, " bytes, ", o.pitch, " apart)")
                      : StrCat(o.name, " (0x", Hex(o.address), ", ", o.row_bytes, " bytes)");
  };
  for (size_t i = 0; i < written.size(); ++i) {
    for (size_t j = i + 1; j < written.size(); ++j) {
      if (OperandsMeet(written[i], written[j])) {
        return ArgumentError(kernel, StrCat(describe(written[i]), " overlaps ",
                                            describe(written[j]), ": both are written"));
      }
    }
    for (const OperandBytes& r : read) {
      if (OperandsMeet(written[i], r)) {
        return ArgumentError(kernel, StrCat(describe(written[i]), " overlaps ", describe(r),
                                            ": the kernel would read ", r.name,
                                            " while writing ", written[i].name));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status RequireGridFits(std::string_view kernel, Dim3 grid, const DeviceInfo& device,
                             std::string_view shape) {
  if (grid.x <= device.max_grid.x && grid.y <= device.max_grid.y && grid.z <= device.max_grid.z) {
    return absl::OkStatus();
  }
  return ArgumentError(kernel, StrCat(shape, " need a grid of ", ToString(grid),
                                      ", over the device limit ", ToString(device.max_grid)));
}

absl::StatusOr<LoadedModule> LoadFamilyModule(GpuBackend& gpu, const ModuleImage& image,
                                              RegisterHostKernelsFn register_host_kernels) {
  static std::mutex mu;
  static auto* registered = new std::set<RegisterHostKernelsFn>();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (register_host_kernels != nullptr && registered->insert(register_host_kernels).second) {
      register_host_kernels(GlobalHostKernels());
    }
  }
  return LoadedModule::Load(gpu, image);
}

absl::Status RunLaunches(absl::Span<const KernelLaunch> launches, StreamHandle stream) {
  for (const KernelLaunch& launch : launches) GPUOPS_RETURN_IF_ERROR(launch.launch(stream));
  return absl::OkStatus();
}

absl::StatusOr<TensorMapDesc> CheckTensorMap(const HostLaunch& l, const TensorMapBytes& bytes,
                                             std::string_view label, TensorMapDataType type,
                                             uint32_t rows, uint32_t k, uint32_t box_rows,
                                             uint32_t box_k) {
  GPUOPS_ASSIGN_OR_RETURN(TensorMapDesc d, DecodeHostTensorMap(bytes));
  const uint32_t bytes_per = ElementBytes(type);
  if (d.rank != 2 || d.data_type != type || d.global_dims[0] != k || d.global_dims[1] != rows ||
      d.box_dims[0] != box_k || d.box_dims[1] != box_rows || d.swizzle != TensorMapSwizzle::k128B ||
      d.global_strides[1] < uint64_t{k} * bytes_per) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": ", label, " describes a ", d.global_dims[1], " x ", d.global_dims[0],
               " tensor with box ", d.box_dims[1], " x ", d.box_dims[0], "; the kernel needs ",
               rows, " x ", k, " ", bytes_per, "-byte elements with box ", box_rows, " x ", box_k,
               " and 128-byte swizzle"));
  }
  return d;
}

absl::Status RequireBlock(const HostLaunch& l, Dim3 want) {
  if (l.block() == want) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat(l.kernel(), ": launched with block ",
                                           ToString(l.block()), ", the kernel is written for ",
                                           ToString(want)));
}

absl::Status RequireSharedMem(const HostLaunch& l, uint32_t need, std::string_view what) {
  if (l.shared_mem_bytes() >= need) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat(l.kernel(), ": launched with ", l.shared_mem_bytes(),
                                           " bytes of shared memory, ", what, " need ", need));
}

absl::Status RequireArgAligned(const HostLaunch& l, DevicePtr p, std::string_view what,
                               uint64_t alignment) {
  if (p.address() % alignment == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat(l.kernel(), " ", what, " at 0x", Hex(p.address()),
                                           " is not ", alignment,
                                           "-byte aligned (the device faults with a misaligned "
                                           "address)"));
}

}  // namespace gpuops::ops
