#include "gpuops/runtime/kernel_launch.h"

#include <array>

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops {
namespace {

constexpr size_t kMaxArgs = 256;

std::string DescribeParam(const KernelInfo& info, size_t i) {
  const KernelParam& p = info.signature.params[i];
  return StrCat("#", i, " ", p.name, ", ", p.size, " bytes");
}

absl::Status DimensionError(const KernelInfo& info, std::string_view what, std::string detail) {
  return absl::InvalidArgumentError(StrCat("launch ", info.name(), ": ", what, " ", detail));
}

absl::Status CheckAxes(const KernelInfo& info, std::string_view what, const Dim3& d,
                       const Dim3& limit) {
  if (d.x == 0 || d.y == 0 || d.z == 0) {
    return DimensionError(info, what, StrCat(ToString(d), " has a zero dimension"));
  }
  const std::array<std::pair<char, std::pair<uint32_t, uint32_t>>, 3> axes{
      {{'x', {d.x, limit.x}}, {'y', {d.y, limit.y}}, {'z', {d.z, limit.z}}}};
  for (const auto& [axis, value_limit] : axes) {
    if (value_limit.first > value_limit.second) {
      return DimensionError(
          info, what,
          StrCat(ToString(d), ": ", what, ".", std::string(1, axis), " = ", value_limit.first,
                 " exceeds the device limit ", value_limit.second));
    }
  }
  return absl::OkStatus();
}

}  // namespace

KernelLaunch& KernelLaunch::arg_bytes(absl::Span<const std::byte> bytes) {
  const auto first = static_cast<uint32_t>(words_.size());
  const size_t words = (bytes.size() + 7) / 8;
  words_.resize(words_.size() + words, 0);
  if (!bytes.empty()) std::memcpy(&words_[first], bytes.data(), bytes.size());
  slots_.push_back({ArgKind::kBytes, static_cast<uint32_t>(bytes.size()), first});
  return *this;
}

absl::Status KernelLaunch::ValidateArguments(const KernelInfo& info) const {
  const std::vector<KernelParam>& params = info.signature.params;
  if (slots_.size() != params.size()) {
    std::string which;
    if (slots_.size() < params.size()) {
      which = StrCat("missing ", DescribeParam(info, slots_.size()));
    } else {
      const Slot& extra = slots_[params.size()];
      which = StrCat("extra #", params.size(), ", ", extra.size, " bytes ", ToString(extra.kind));
    }
    return absl::InvalidArgumentError(StrCat("launch ", info.name(), ": ", slots_.size(),
                                             " arguments given, compiled kernel takes ",
                                             params.size(), " (", which, ")"));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (slots_[i].size != params[i].size) {
      return absl::InvalidArgumentError(
          StrCat("launch ", info.name(), ": argument #", i, " (", params[i].name, ") is ",
                 slots_[i].size, " bytes (", ToString(slots_[i].kind),
                 "), compiled parameter takes ", params[i].size, " bytes"));
    }
  }
  return absl::OkStatus();
}

absl::Status KernelLaunch::ValidateDimensions(const KernelInfo& info) const {
  const DeviceInfo& device = gpu_->device_info();
  GPUOPS_RETURN_IF_ERROR(CheckAxes(info, "grid", grid_, device.max_grid));
  GPUOPS_RETURN_IF_ERROR(CheckAxes(info, "block", block_, device.max_block));
  if (block_.volume() > device.max_threads_per_block) {
    return DimensionError(info, "block",
                          StrCat(ToString(block_), " has ", block_.volume(),
                                 " threads, the device allows ", device.max_threads_per_block));
  }
  if (shared_mem_bytes_ > device.shared_mem_per_block_optin) {
    return absl::InvalidArgumentError(
        StrCat("launch ", info.name(), ": ", shared_mem_bytes_,
               " bytes of dynamic shared memory requested, the device allows at most ",
               device.shared_mem_per_block_optin, " per block"));
  }
  return absl::OkStatus();
}

absl::Status KernelLaunch::Validate() const {
  if (kernel_.is_null()) {
    return absl::FailedPreconditionError(
        "launch: kernel handle is null (this build or device does not ship the kernel; check "
        "KernelHandle::is_null() and fall back to another variant)");
  }
  const KernelInfo& info = *kernel_.info();
  if (slots_.size() > kMaxArgs) {
    return absl::InvalidArgumentError(
        StrCat("launch ", info.name(), ": ", slots_.size(), " arguments, at most ", kMaxArgs));
  }
  GPUOPS_RETURN_IF_ERROR(ValidateArguments(info));
  return ValidateDimensions(info);
}

absl::Status KernelLaunch::launch(StreamHandle stream) const {
  GPUOPS_RETURN_IF_ERROR(Validate());
  absl::InlinedVector<LaunchArg, 16> args(slots_.size());
  absl::InlinedVector<void*, 16> values(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    // Drivers take the values as void* but only read them.
    void* data = const_cast<uint64_t*>(&words_[slots_[i].word]);
    args[i] = {slots_[i].kind, slots_[i].size, data};
    values[i] = data;
  }
  const LaunchRequest request(kernel_, grid_, block_, shared_mem_bytes_, stream, args,
                              values.data(), overlaps_previous_);
  return gpu_->Launch(request);
}

absl::Status CheckSignatureMatches(const KernelSignature& signature, std::string_view list,
                                   absl::Span<const ArgField> fields) {
  auto describe_fields = [&] {
    return StrJoin(fields, ", ", [](std::string* out, const ArgField& f) {
      StrAppend(out, f.name, ":", f.size);
    });
  };
  auto mismatch = [&](std::string what) {
    return absl::FailedPreconditionError(StrCat(
        signature.kernel, ": the compiled parameters (",
        StrJoin(
            signature.params, ", ",
            [](std::string* out, const KernelParam& p) { StrAppend(out, p.name, ":", p.size); }),
        ") differ from the argument list ", list, " (", describe_fields(), "): ", what));
  };
  if (signature.params.size() != fields.size()) {
    // Name what one side has and the other lacks: the seed's 8-versus-9-argument trap reads
    // "the list lacks ldb".
    std::string what = StrCat(signature.params.size(), " parameters, ", fields.size(), " fields; ");
    if (signature.params.size() > fields.size()) {
      StrAppend(&what, "the list lacks ",
                StrJoin(absl::MakeConstSpan(signature.params).subspan(fields.size()), ", ",
                        [](std::string* out, const KernelParam& p) { StrAppend(out, p.name); }));
    } else {
      StrAppend(&what, "the kernel has no parameter for ",
                StrJoin(fields.subspan(signature.params.size()), ", ",
                        [](std::string* out, const ArgField& f) { StrAppend(out, f.name); }));
    }
    return mismatch(std::move(what));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const KernelParam& p = signature.params[i];
    if (p.size != fields[i].size) {
      return mismatch(StrCat("#", i, " ", p.name, " is ", p.size, " bytes, field ", fields[i].name,
                             " ", fields[i].size));
    }
    // Parameters read from a cubin without their source are named "#i": only sizes are known.
    if (!p.name.starts_with('#') && p.name != fields[i].name) {
      return mismatch(
          StrCat("#", i, " is named ", p.name, " in the kernel, ", fields[i].name, " in the list"));
    }
  }
  return absl::OkStatus();
}

}  // namespace gpuops
