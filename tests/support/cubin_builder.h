// Builds small ELF64 cubins, .nv.info records and fatbins in memory, so reader tests and fuzz
// seeds need no nvcc. Layouts follow ../shared/docs/kernel-metadata.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gpuops::testing {

using Blob = std::vector<uint8_t>;

template <typename T>
void Put(Blob& b, T v) {
  const size_t at = b.size();
  b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &v, sizeof(T));
}

template <typename T>
void PutAt(Blob& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof(T));
}

// One KPARAM_INFO record (SVAL, 12-byte payload). v1 packs the size into bits 18..31 of `w`.
inline Blob KparamRecord(uint16_t ordinal, uint16_t offset, uint32_t size, int version = 1) {
  Blob r;
  Put<uint8_t>(r, 4);
  Put<uint8_t>(r, version == 1 ? 0x17 : 0x45);
  Put<uint16_t>(r, 12);
  Put<uint32_t>(r, 0);
  Put<uint16_t>(r, ordinal);
  Put<uint16_t>(r, offset);
  Put<uint32_t>(r, version == 1 ? ((size & 0x3fff) << 18) | 0x1f000 : size & 0xffff);
  return r;
}

inline Blob HvalRecord(uint8_t attr, uint16_t value) {
  Blob r;
  Put<uint8_t>(r, 3);
  Put<uint8_t>(r, attr);
  Put<uint16_t>(r, value);
  return r;
}

// An .nv.info section for params of the given sizes at naturally aligned offsets, written last
// parameter first as nvcc does, with CBANK_PARAM_SIZE and an unrelated record in between.
inline Blob NvInfoFor(const std::vector<uint32_t>& sizes, int version = 1) {
  Blob out;
  std::vector<uint16_t> offsets;
  uint32_t at = 0;
  for (uint32_t s : sizes) {
    const uint32_t align = s >= 8 ? 8 : s;
    at = (at + align - 1) / align * align;
    offsets.push_back(static_cast<uint16_t>(at));
    at += s;
  }
  for (size_t i = sizes.size(); i-- > 0;) {
    const Blob r = KparamRecord(static_cast<uint16_t>(i), offsets[i], sizes[i], version);
    out.insert(out.end(), r.begin(), r.end());
  }
  const Blob other = HvalRecord(0x1b, 0x00ff);  // an attribute the reader skips
  out.insert(out.end(), other.begin(), other.end());
  if (!sizes.empty()) {
    const Blob cbank = HvalRecord(0x19, static_cast<uint16_t>(at));
    out.insert(out.end(), cbank.begin(), cbank.end());
  }
  return out;
}

struct SectionSpec {
  std::string name;
  uint32_t type = 1;  // SHT_PROGBITS
  Blob data;
};

// ELF64 little-endian: header, section data, name table, then the section headers.
inline Blob BuildElf(uint16_t machine, const std::vector<SectionSpec>& sections) {
  Blob b(64, 0);
  b[0] = 0x7f;
  b[1] = 'E';
  b[2] = 'L';
  b[3] = 'F';
  b[4] = 2;
  b[5] = 1;
  b[6] = 1;
  PutAt<uint16_t>(b, 16, 2);
  PutAt<uint16_t>(b, 18, machine);
  PutAt<uint32_t>(b, 20, 1);
  PutAt<uint16_t>(b, 52, 64);
  std::vector<std::pair<uint64_t, uint64_t>> where;  // offset, size
  for (const SectionSpec& s : sections) {
    where.emplace_back(b.size(), s.data.size());
    b.insert(b.end(), s.data.begin(), s.data.end());
  }
  Blob names(1, 0);
  std::vector<uint32_t> name_at;
  for (const SectionSpec& s : sections) {
    name_at.push_back(static_cast<uint32_t>(names.size()));
    names.insert(names.end(), s.name.begin(), s.name.end());
    names.push_back(0);
  }
  const uint32_t shstrtab_name = static_cast<uint32_t>(names.size());
  const std::string shstrtab = ".shstrtab";
  names.insert(names.end(), shstrtab.begin(), shstrtab.end());
  names.push_back(0);
  const uint64_t names_at = b.size();
  b.insert(b.end(), names.begin(), names.end());
  while (b.size() % 8 != 0) b.push_back(0);
  const uint64_t shoff = b.size();
  auto header = [&b](uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint32_t link,
                     uint32_t info) {
    Put<uint32_t>(b, name);
    Put<uint32_t>(b, type);
    Put<uint64_t>(b, 0);
    Put<uint64_t>(b, 0);
    Put<uint64_t>(b, off);
    Put<uint64_t>(b, size);
    Put<uint32_t>(b, link);
    Put<uint32_t>(b, info);
    Put<uint64_t>(b, 1);
    Put<uint64_t>(b, 0);
  };
  header(0, 0, 0, 0, 0, 0);
  for (size_t i = 0; i < sections.size(); ++i) {
    header(name_at[i], sections[i].type, where[i].first, where[i].second, 0, 0);
  }
  header(shstrtab_name, 3, names_at, names.size(), 0, 0);
  PutAt<uint64_t>(b, 40, shoff);
  PutAt<uint16_t>(b, 58, 64);
  PutAt<uint16_t>(b, 60, static_cast<uint16_t>(sections.size() + 2));
  PutAt<uint16_t>(b, 62, static_cast<uint16_t>(sections.size() + 1));
  return b;
}

// A cubin with one kernel per entry of `kernels` (name -> parameter sizes).
inline Blob BuildCubin(const std::vector<std::pair<std::string, std::vector<uint32_t>>>& kernels,
                       int version = 1) {
  std::vector<SectionSpec> sections;
  for (const auto& [name, sizes] : kernels) {
    sections.push_back({".text." + name, 1, Blob(16, 0)});
    sections.push_back({".nv.info." + name, 0x70000000, NvInfoFor(sizes, version)});
  }
  return BuildElf(190, sections);
}

struct EntrySpec {
  uint16_t kind = 2;  // 1 PTX, 2 ELF
  uint32_t arch = 90;
  uint64_t flags = 0x11;
  Blob payload;
  uint32_t compressed_size = 0;
};

// One fatbin container holding `entries` (64-byte entry headers, payloads padded to 8).
inline Blob BuildFatbin(const std::vector<EntrySpec>& entries) {
  Blob body;
  for (const EntrySpec& e : entries) {
    Blob payload = e.payload;
    while (payload.size() % 8 != 0) payload.push_back(0);
    const size_t at = body.size();
    body.resize(at + 64, 0);
    PutAt<uint16_t>(body, at + 0x00, e.kind);
    PutAt<uint32_t>(body, at + 0x04, 64);
    PutAt<uint32_t>(body, at + 0x08, static_cast<uint32_t>(payload.size()));
    PutAt<uint32_t>(body, at + 0x10, e.compressed_size);
    PutAt<uint32_t>(body, at + 0x1c, e.arch);
    PutAt<uint64_t>(body, at + 0x28, e.flags);
    body.insert(body.end(), payload.begin(), payload.end());
  }
  Blob b;
  Put<uint32_t>(b, 0xBA55ED50);
  Put<uint16_t>(b, 1);
  Put<uint16_t>(b, 16);
  Put<uint64_t>(b, body.size());
  b.insert(b.end(), body.begin(), body.end());
  return b;
}

}  // namespace gpuops::testing
