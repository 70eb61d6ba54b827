// Readers for AMD GPU code objects (HIP; formats: ../shared/docs/kernel-metadata.md, "AMD code
// object"): the clang offload bundle hipcc writes, the msgpack subset of the AMDGPU metadata note,
// and each kernel's parameter list from that note. They parse untrusted bytes: every offset, size
// and count is bounds-checked, nesting is limited, and anything malformed is kInvalidArgument
// naming what is wrong and where. Nothing here needs a GPU or the HIP runtime.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/kernel_metadata.h"
#include "gpuops/runtime/kernel_signature.h"

namespace gpuops::metadata {

// --- Clang offload bundle

inline constexpr std::string_view kOffloadBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";

struct OffloadBundleEntry {
  std::string triple;  // "hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu"
  uint64_t offset = 0;
  Bytes payload;

  // The offload arch of a device triple ("gfx90a"); empty for a host entry.
  std::string arch() const;
};

// Every entry of a bundle: the magic, u64 count, then count x {u64 offset, u64 size, u64
// triple length, triple}; each payload must lie inside `bytes`.
absl::StatusOr<std::vector<OffloadBundleEntry>> ParseOffloadBundle(Bytes bytes);

// The code object for `arch` ("gfx90a"): kNotFound listing the bundle's archs when absent.
absl::StatusOr<OffloadBundleEntry> SelectCodeObject(const std::vector<OffloadBundleEntry>& entries,
                                                    std::string_view arch);

// --- msgpack (the subset the AMDGPU metadata note uses)

class MsgpackValue {
 public:
  enum class Kind : uint8_t { kNil, kBool, kInt, kString, kBinary, kFloat, kArray, kMap };

  Kind kind() const { return kind_; }
  bool boolean() const { return bool_; }
  int64_t integer() const { return int_; }       // kInt (uint64 beyond INT64_MAX is refused)
  const std::string& string() const { return str_; }  // kString and kBinary
  const std::vector<MsgpackValue>& array() const { return items_; }
  const std::vector<std::pair<MsgpackValue, MsgpackValue>>& map() const { return entries_; }
  // The value of string key `key` in a map; null when absent or not a map.
  const MsgpackValue* Find(std::string_view key) const;

 private:
  friend class MsgpackReader;
  Kind kind_ = Kind::kNil;
  bool bool_ = false;
  int64_t int_ = 0;
  std::string str_;
  std::vector<MsgpackValue> items_;
  std::vector<std::pair<MsgpackValue, MsgpackValue>> entries_;
};

// One value covering `bytes` up to trailing zero padding; nesting deeper than 32 is refused.
absl::StatusOr<MsgpackValue> ParseMsgpack(Bytes bytes);

// --- AMDGPU code object

inline constexpr uint32_t kNtAmdgpuMetadata = 32;

struct AmdKernel {
  std::string name;
  // The caller's parameters: the args whose .value_kind does not start with "hidden_", in
  // order, named by .name ("#i" when the note has none).
  std::vector<KernelParam> params;
  uint32_t kernarg_segment_size = 0;  // including the hidden arguments the runtime fills
  uint32_t hidden_args = 0;
};

// Every kernel of an AMDGPU code object (ELF64, e_machine 224) from its NT_AMDGPU_METADATA note
// ("amdhsa.kernels"), sorted by name.
absl::StatusOr<std::vector<AmdKernel>> ReadAmdKernels(Bytes code_object);

}  // namespace gpuops::metadata
