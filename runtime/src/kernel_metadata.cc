#include "gpuops/runtime/kernel_metadata.h"

#include <algorithm>
#include <cstring>

#include "gpuops/runtime/str.h"
#include "byte_reader.h"

namespace gpuops::metadata {
namespace {

using internal::Fits;
using internal::Malformed;
using internal::Read;

// --- ELF

constexpr uint64_t kElfHeaderSize = 64;
constexpr uint64_t kSectionHeaderSize = 64;

struct RawSection {
  uint32_t name = 0;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
};

bool ReadSectionHeader(Bytes b, uint64_t at, RawSection* s) {
  return Read(b, at + 0, &s->name) && Read(b, at + 4, &s->type) && Read(b, at + 8, &s->flags) &&
         Read(b, at + 24, &s->offset) && Read(b, at + 32, &s->size) && Read(b, at + 40, &s->link) &&
         Read(b, at + 44, &s->info);
}

// --- nv.info

constexpr uint8_t kFmtNval = 1;
constexpr uint8_t kFmtBval = 2;
constexpr uint8_t kFmtHval = 3;
constexpr uint8_t kFmtSval = 4;
constexpr uint8_t kAttrKparamInfo = 0x17;
constexpr uint8_t kAttrKparamInfoV2 = 0x45;
constexpr uint8_t kAttrCbankParamSize = 0x19;
constexpr uint16_t kKparamPayload = 12;

// --- fatbin

constexpr uint64_t kContainerHeaderSize = 16;
constexpr uint64_t kMinEntryHeaderSize = 64;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kFlagArchSpecific = 0x100000;

}  // namespace

absl::StatusOr<ElfFile> ElfFile::Parse(Bytes b) {
  if (b.size() < kElfHeaderSize) {
    return Malformed(StrCat("ELF: ", b.size(), " bytes, shorter than the 64-byte ELF64 header"));
  }
  if (!(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F')) {
    return Malformed("ELF: bad magic (expected 7f 45 4c 46 at offset 0)");
  }
  if (b[4] != 2)
    return Malformed(StrCat("ELF: class ", int{b[4]}, " at offset 4, expected 2 (ELF64)"));
  if (b[5] != 1) {
    return Malformed(
        StrCat("ELF: data encoding ", int{b[5]}, " at offset 5, expected 1 (little-endian)"));
  }
  ElfFile elf;
  uint64_t shoff = 0;
  uint16_t shentsize = 0;
  uint16_t shnum16 = 0;
  uint16_t shstrndx16 = 0;
  Read(b, 18, &elf.machine_);
  Read(b, 40, &shoff);
  Read(b, 58, &shentsize);
  Read(b, 60, &shnum16);
  Read(b, 62, &shstrndx16);
  if (shoff == 0) return elf;  // no section table
  if (shentsize < kSectionHeaderSize) {
    return Malformed(StrCat("ELF: e_shentsize ", shentsize, " at offset 58 is below 64"));
  }
  RawSection first;
  if (!Fits(shoff, shentsize, b.size()) || !ReadSectionHeader(b, shoff, &first)) {
    return Malformed(
        StrCat("ELF: section table at ", shoff, " lies outside the ", b.size(), "-byte file"));
  }
  // Extended numbering: counts that do not fit in 16 bits live in section 0.
  const uint64_t shnum = shnum16 != 0 ? shnum16 : first.size;
  const uint64_t shstrndx = shstrndx16 != 0xffff ? shstrndx16 : first.link;
  if (shnum > (b.size() - shoff) / shentsize) {
    return Malformed(StrCat("ELF: ", shnum, " section headers of ", shentsize, " bytes at ", shoff,
                            " run past the end of the ", b.size(), "-byte file"));
  }
  std::vector<RawSection> raw(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    ReadSectionHeader(b, shoff + i * shentsize, &raw[i]);
    if (raw[i].type != kShtNobits && !Fits(raw[i].offset, raw[i].size, b.size())) {
      return Malformed(StrCat("ELF: section ", i, " (offset ", raw[i].offset, ", size ",
                              raw[i].size, ") runs past the end of the ", b.size(), "-byte file"));
    }
  }
  if (shnum > 0 && shstrndx >= shnum) {
    return Malformed(StrCat("ELF: section-name table index ", shstrndx, " is not below the ", shnum,
                            " sections"));
  }
  const RawSection* strtab = shnum > 0 ? &raw[shstrndx] : nullptr;
  if (strtab != nullptr && strtab->type == kShtNobits) {
    return Malformed("ELF: the section-name table has no data (SHT_NOBITS)");
  }
  elf.sections_.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    ElfSection s;
    const RawSection& r = raw[i];
    if (strtab != nullptr && (r.name != 0 || i != 0)) {
      if (r.name >= strtab->size) {
        return Malformed(StrCat("ELF: section ", i, " name offset ", r.name, " is outside the ",
                                strtab->size, "-byte name table"));
      }
      const char* start = reinterpret_cast<const char*>(b.data() + strtab->offset + r.name);
      const size_t max_len = strtab->size - r.name;
      const size_t len = strnlen(start, max_len);
      if (len == max_len) {
        return Malformed(StrCat("ELF: section ", i, " name at offset ", r.name,
                                " is not NUL-terminated inside the name table"));
      }
      s.name.assign(start, len);
    }
    s.type = r.type;
    s.flags = r.flags;
    s.link = r.link;
    s.info = r.info;
    if (r.type != kShtNobits) s.data = b.subspan(r.offset, r.size);
    elf.sections_.push_back(std::move(s));
  }
  return elf;
}

const ElfSection* ElfFile::Find(std::string_view name) const {
  for (const ElfSection& s : sections_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

absl::StatusOr<std::vector<KernelParam>> ParseNvInfo(Bytes section, std::string_view kernel) {
  struct Raw {
    uint16_t ordinal;
    uint16_t offset;
    uint32_t size;
  };
  std::vector<Raw> params;
  int64_t cbank_param_size = -1;
  int kparam_version = 0;
  uint64_t at = 0;
  auto where = [&](uint64_t record) {
    return StrCat(".nv.info.", kernel, " record at offset ", record);
  };
  while (at < section.size()) {
    const uint64_t record = at;
    uint8_t fmt = 0;
    uint8_t attr = 0;
    if (!Read(section, at, &fmt) || !Read(section, at + 1, &attr)) {
      return Malformed(StrCat(where(record), ": truncated record header"));
    }
    at += 2;
    switch (fmt) {
      case kFmtNval:
      case kFmtBval:
      case kFmtHval: {
        uint16_t value = 0;
        if (!Read(section, at, &value)) {
          return Malformed(StrCat(where(record), ": truncated 2-byte value"));
        }
        at += 2;
        if (attr == kAttrCbankParamSize) {
          if (fmt != kFmtHval) {
            return Malformed(StrCat(where(record), ": CBANK_PARAM_SIZE with format ", int{fmt},
                                    ", expected 3 (HVAL)"));
          }
          cbank_param_size = value;
        }
        break;
      }
      case kFmtSval: {
        uint16_t n = 0;
        if (!Read(section, at, &n)) {
          return Malformed(StrCat(where(record), ": truncated SVAL length"));
        }
        at += 2;
        if (!Fits(at, n, section.size())) {
          return Malformed(StrCat(where(record), " (SVAL, attribute 0x", Hex(attr), ") claims ", n,
                                  " payload bytes, the section has ", section.size() - at,
                                  " left"));
        }
        if (attr == kAttrKparamInfo || attr == kAttrKparamInfoV2) {
          const int version = attr == kAttrKparamInfo ? 1 : 2;
          if (kparam_version != 0 && kparam_version != version) {
            return Malformed(StrCat(where(record), ": KPARAM_INFO v1 and v2 records mixed"));
          }
          kparam_version = version;
          if (n != kKparamPayload) {
            return Malformed(
                StrCat(where(record), ": KPARAM_INFO payload is ", n, " bytes, expected 12"));
          }
          uint16_t ordinal = 0;
          uint16_t offset = 0;
          uint32_t w = 0;
          Read(section, at + 4, &ordinal);
          Read(section, at + 6, &offset);
          Read(section, at + 8, &w);
          const uint32_t size = version == 1 ? (w >> 18) & 0x3fff : w & 0xffff;
          params.push_back({ordinal, offset, size});
        }
        at += n;
        break;
      }
      default:
        return Malformed(
            StrCat(where(record), ": unknown format byte ", int{fmt}, " (expected 1..4)"));
    }
  }
  std::sort(params.begin(), params.end(),
            [](const Raw& a, const Raw& b) { return a.ordinal < b.ordinal; });
  std::vector<KernelParam> out;
  out.reserve(params.size());
  uint32_t end = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].ordinal != i) {
      return Malformed(StrCat(".nv.info.", kernel, ": parameter ordinals are not 0..",
                              params.size() - 1, " (ordinal ", params[i].ordinal, " where ", i,
                              " was expected)"));
    }
    if (params[i].size == 0) {
      return Malformed(StrCat(".nv.info.", kernel, ": parameter #", i, " has size 0"));
    }
    if (params[i].offset < end) {
      return Malformed(StrCat(".nv.info.", kernel, ": parameter #", i, " at offset ",
                              params[i].offset, " overlaps the previous one (ending at ", end,
                              ")"));
    }
    end = params[i].offset + params[i].size;
    out.push_back({StrCat("#", i), params[i].offset, params[i].size});
  }
  if (cbank_param_size >= 0 && static_cast<int64_t>(end) > cbank_param_size) {
    return Malformed(StrCat(".nv.info.", kernel, ": parameters end at byte ", end,
                            ", past CBANK_PARAM_SIZE ", cbank_param_size));
  }
  if (cbank_param_size > 0 && out.empty()) {
    return Malformed(StrCat(".nv.info.", kernel, ": CBANK_PARAM_SIZE is ", cbank_param_size,
                            " but no KPARAM_INFO records"));
  }
  return out;
}

absl::StatusOr<std::vector<CubinKernel>> ReadCubinKernels(Bytes cubin) {
  auto elf = ElfFile::Parse(cubin);
  if (!elf.ok()) return elf.status();
  if (elf->machine() != kElfMachineCuda) {
    return Malformed(StrCat("cubin: ELF machine ", elf->machine(), ", expected 190 (EM_CUDA)"));
  }
  constexpr std::string_view kPrefix = ".nv.info.";
  std::vector<CubinKernel> kernels;
  for (const ElfSection& s : elf->sections()) {
    if (s.type != kShtCudaInfo || !s.name.starts_with(kPrefix) || s.name.size() == kPrefix.size()) {
      continue;
    }
    CubinKernel k;
    k.name = s.name.substr(kPrefix.size());
    auto params = ParseNvInfo(s.data, k.name);
    if (!params.ok()) return params.status();
    k.params = *std::move(params);
    kernels.push_back(std::move(k));
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const CubinKernel& a, const CubinKernel& b) { return a.name < b.name; });
  for (size_t i = 1; i < kernels.size(); ++i) {
    if (kernels[i].name == kernels[i - 1].name) {
      return Malformed(StrCat("cubin: two .nv.info sections for kernel ", kernels[i].name));
    }
  }
  return kernels;
}

std::string FatbinEntry::arch_name() const {
  return StrCat(kind == FatbinEntryKind::kPtx ? "compute_" : "sm_", arch, arch_specific ? "a" : "");
}

absl::StatusOr<std::vector<FatbinEntry>> ParseFatbin(Bytes b) {
  std::vector<FatbinEntry> entries;
  uint64_t container = 0;
  while (container < b.size()) {
    if (std::all_of(b.begin() + container, b.end(), [](uint8_t c) { return c == 0; })) break;
    uint32_t magic = 0;
    uint16_t version = 0;
    uint16_t header_size = 0;
    uint64_t payload_size = 0;
    if (!Read(b, container, &magic) || !Read(b, container + 4, &version) ||
        !Read(b, container + 6, &header_size) || !Read(b, container + 8, &payload_size)) {
      return Malformed(StrCat("fatbin: truncated container header at offset ", container));
    }
    if (magic != kFatbinMagic) {
      return Malformed(StrCat("fatbin: bad magic 0x", Hex(magic), " at offset ", container,
                              " (expected 0xba55ed50)"));
    }
    if (version != 1) {
      return Malformed(
          StrCat("fatbin: container version ", version, " at offset ", container, ", expected 1"));
    }
    if (header_size < kContainerHeaderSize) {
      return Malformed(StrCat("fatbin: container header size ", header_size, " at offset ",
                              container, " is below 16"));
    }
    const uint64_t start = container + header_size;
    if (!Fits(start, payload_size, b.size())) {
      return Malformed(StrCat("fatbin: container at offset ", container, " claims ", payload_size,
                              " payload bytes, the file has ",
                              b.size() > start ? b.size() - start : 0, " left"));
    }
    const uint64_t end = start + payload_size;
    uint64_t entry = start;
    while (entry < end) {
      uint16_t kind = 0;
      uint32_t entry_header = 0;
      uint32_t padded = 0;
      uint32_t compressed_size = 0;
      uint32_t arch = 0;
      uint64_t flags = 0;
      uint64_t uncompressed = 0;
      const Bytes container_bytes = b.first(end);
      if (!Read(container_bytes, entry, &kind) ||
          !Read(container_bytes, entry + 4, &entry_header) ||
          !Read(container_bytes, entry + 8, &padded) ||
          !Read(container_bytes, entry + 0x10, &compressed_size) ||
          !Read(container_bytes, entry + 0x1c, &arch) ||
          !Read(container_bytes, entry + 0x28, &flags) ||
          !Read(container_bytes, entry + 0x38, &uncompressed)) {
        return Malformed(StrCat("fatbin: truncated entry header at offset ", entry));
      }
      if (entry_header < kMinEntryHeaderSize) {
        return Malformed(StrCat("fatbin: entry at offset ", entry, " has header size ",
                                entry_header, ", below 64"));
      }
      if (!Fits(entry + entry_header, padded, end)) {
        return Malformed(StrCat("fatbin: entry at offset ", entry, " (header ", entry_header,
                                ", payload ", padded, " bytes) runs past its container's end at ",
                                end));
      }
      if (kind != static_cast<uint16_t>(FatbinEntryKind::kPtx) &&
          kind != static_cast<uint16_t>(FatbinEntryKind::kElf)) {
        return Malformed(StrCat("fatbin: entry at offset ", entry, " has kind ", kind,
                                ", expected 1 (PTX) or 2 (ELF)"));
      }
      FatbinEntry e;
      e.kind = static_cast<FatbinEntryKind>(kind);
      e.arch = arch;
      e.flags = flags;
      e.arch_specific = (flags & kFlagArchSpecific) != 0;
      e.compressed = compressed_size != 0 || (flags & (kFlagLz4 | kFlagZstd)) != 0;
      e.offset = entry;
      uint64_t payload = padded;
      if (compressed_size != 0) {
        if (compressed_size > padded) {
          return Malformed(StrCat("fatbin: entry at offset ", entry, " claims ", compressed_size,
                                  " compressed bytes in a ", padded, "-byte payload"));
        }
        payload = compressed_size;
      }
      e.payload = b.subspan(entry + entry_header, payload);
      entries.push_back(e);
      entry += entry_header + uint64_t{padded};
    }
    container = end;
  }
  return entries;
}

absl::StatusOr<FatbinEntry> SelectElf(const std::vector<FatbinEntry>& entries,
                                      std::string_view arch) {
  std::string have;
  for (const FatbinEntry& e : entries) {
    StrAppend(&have, have.empty() ? "" : ", ", e.arch_name(), e.compressed ? " (compressed)" : "");
    if (e.kind != FatbinEntryKind::kElf || e.arch_name() != arch) continue;
    if (e.compressed) {
      return absl::FailedPreconditionError(StrCat(
          "fatbin: the ", arch, " ELF entry at offset ", e.offset, " is compressed (flags 0x",
          Hex(e.flags), "); rebuild with nvcc's default or -compress-mode=none"));
    }
    return e;
  }
  return absl::NotFoundError(
      StrCat("fatbin: no ELF entry for ", arch, " (entries: ", have.empty() ? "none" : have, ")"));
}

}  // namespace gpuops::metadata
