// Readers for compiled kernel code: ELF64, NVIDIA cubin `.nv.info.<kernel>` parameter records and
// fatbin containers (formats: ../shared/docs/kernel-metadata.md). They parse untrusted bytes:
// every offset and size is bounds-checked, and anything malformed is kInvalidArgument naming what
// is wrong and where. Nothing here needs a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/kernel_signature.h"

namespace gpuops::metadata {

using Bytes = absl::Span<const uint8_t>;

// --- ELF64 (little-endian)

inline constexpr uint16_t kElfMachineCuda = 190;
inline constexpr uint16_t kElfMachineAmdgpu = 224;
inline constexpr uint32_t kShtNobits = 8;
inline constexpr uint32_t kShtCudaInfo = 0x70000000;

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  Bytes data;  // empty for SHT_NOBITS
};

class ElfFile {
 public:
  // `bytes` must outlive the ElfFile: sections view into it.
  static absl::StatusOr<ElfFile> Parse(Bytes bytes);

  uint16_t machine() const { return machine_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* Find(std::string_view name) const;

 private:
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
};

// --- NVIDIA cubin

// Parameters of one kernel from its `.nv.info.<kernel>` section, sorted by ordinal; names are
// "#0", "#1", ... (the cubin holds no names). `kernel` names the section in errors.
absl::StatusOr<std::vector<KernelParam>> ParseNvInfo(Bytes section, std::string_view kernel);

struct CubinKernel {
  std::string name;
  std::vector<KernelParam> params;
};

// Every kernel of a cubin (each `.nv.info.<kernel>` section), sorted by name.
absl::StatusOr<std::vector<CubinKernel>> ReadCubinKernels(Bytes cubin);

// --- NVIDIA fatbin

enum class FatbinEntryKind : uint16_t { kPtx = 1, kElf = 2 };

struct FatbinEntry {
  FatbinEntryKind kind = FatbinEntryKind::kElf;
  uint32_t arch = 0;           // 80, 90, 100, ...
  bool arch_specific = false;  // an "a" arch such as sm_90a
  bool compressed = false;
  uint64_t flags = 0;
  uint64_t offset = 0;  // of the entry header in the fatbin, for messages
  Bytes payload;        // the (possibly compressed) payload bytes

  std::string arch_name() const;  // "sm_90a", "sm_80"
};

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;

// Every entry of every container in `bytes` (containers may follow each other; trailing zero
// padding is allowed).
absl::StatusOr<std::vector<FatbinEntry>> ParseFatbin(Bytes bytes);

// The ELF entry for `arch` ("sm_90a"): kNotFound when there is none, kFailedPrecondition when it
// is compressed (this reader does not decompress; build with nvcc's default or
// -compress-mode=none).
absl::StatusOr<FatbinEntry> SelectElf(const std::vector<FatbinEntry>& entries,
                                      std::string_view arch);

}  // namespace gpuops::metadata
