// Builds AMD code objects in memory: msgpack values, the AMDGPU metadata note, an ELF64 with
// e_machine 224 holding it, and the clang offload bundle around code objects; so the readers'
// tests and fuzz seeds need no hipcc. Layouts follow ../shared/docs/kernel-metadata.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/cubin_builder.h"

namespace gpuops::testing {

// msgpack writer (big-endian), the subset the metadata note uses.
class Msgpack {
 public:
  Msgpack& Map(uint32_t n) { return Head(0x80, 0xde, 0xdf, n, 16); }
  Msgpack& Array(uint32_t n) { return Head(0x90, 0xdc, 0xdd, n, 16); }
  Msgpack& Str(const std::string& s) {
    if (s.size() < 32) {
      out_.push_back(static_cast<uint8_t>(0xa0 | s.size()));
    } else {
      out_.push_back(0xd9);
      out_.push_back(static_cast<uint8_t>(s.size()));
    }
    out_.insert(out_.end(), s.begin(), s.end());
    return *this;
  }
  Msgpack& UInt(uint64_t v) {
    if (v < 128) {
      out_.push_back(static_cast<uint8_t>(v));
    } else if (v <= 0xffff) {
      out_.push_back(0xcd);
      Big(v, 2);
    } else {
      out_.push_back(0xcf);
      Big(v, 8);
    }
    return *this;
  }
  Msgpack& Raw(const Blob& b) {
    out_.insert(out_.end(), b.begin(), b.end());
    return *this;
  }
  const Blob& bytes() const { return out_; }

 private:
  Msgpack& Head(uint8_t fix, uint8_t tag16, uint8_t tag32, uint32_t n, uint32_t fix_limit) {
    if (n < fix_limit) {
      out_.push_back(static_cast<uint8_t>(fix | n));
    } else if (n <= 0xffff) {
      out_.push_back(tag16);
      Big(n, 2);
    } else {
      out_.push_back(tag32);
      Big(n, 4);
    }
    return *this;
  }
  void Big(uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  Blob out_;
};

struct AmdArg {
  std::string name;  // empty: no .name key
  uint32_t offset = 0, size = 0;
  std::string value_kind = "by_value";
};
struct AmdKernelSpec {
  std::string name;
  std::vector<AmdArg> args;
  uint32_t kernarg_size = 0;  // 0: the end of the last argument
};

// The user arguments of `sizes` at naturally aligned offsets, then the hidden ones hipcc adds.
inline std::vector<AmdArg> ArgsFor(const std::vector<std::pair<std::string, uint32_t>>& user) {
  std::vector<AmdArg> out;
  uint32_t at = 0;
  for (const auto& [name, size] : user) {
    at = (at + size - 1) / size * size;
    out.push_back({name, at, size, size == 8 ? "global_buffer" : "by_value"});
    at += size;
  }
  at = (at + 7) / 8 * 8;
  for (const char* hidden : {"hidden_block_count_x", "hidden_block_count_y", "hidden_group_size_x"}) {
    out.push_back({"", at, 4, hidden});
    at += 4;
  }
  return out;
}

// The msgpack map of the note: {"amdhsa.version": [1, 2], "amdhsa.kernels": [...]}.
inline Blob MetadataFor(const std::vector<AmdKernelSpec>& kernels) {
  Msgpack m;
  m.Map(2).Str("amdhsa.version").Array(2).UInt(1).UInt(2).Str("amdhsa.kernels");
  m.Array(static_cast<uint32_t>(kernels.size()));
  for (const AmdKernelSpec& k : kernels) {
    uint32_t end = 0;
    for (const AmdArg& a : k.args) end = std::max(end, a.offset + a.size);
    m.Map(4).Str(".name").Str(k.name).Str(".symbol").Str(k.name + ".kd");
    m.Str(".kernarg_segment_size").UInt(k.kernarg_size != 0 ? k.kernarg_size : end);
    m.Str(".args").Array(static_cast<uint32_t>(k.args.size()));
    for (const AmdArg& a : k.args) {
      m.Map(a.name.empty() ? 3 : 4);
      if (!a.name.empty()) m.Str(".name").Str(a.name);
      m.Str(".offset").UInt(a.offset).Str(".size").UInt(a.size).Str(".value_kind").Str(a.value_kind);
    }
  }
  return m.bytes();
}

// A note section: {namesz 7, descsz, type}, "AMDGPU\0" padded to 4, desc padded to 4.
inline Blob NoteFor(const Blob& desc, uint32_t type = 32) {
  Blob n;
  Put<uint32_t>(n, 7);
  Put<uint32_t>(n, static_cast<uint32_t>(desc.size()));
  Put<uint32_t>(n, type);
  const std::string name("AMDGPU\0", 7);
  n.insert(n.end(), name.begin(), name.end());
  n.push_back(0);
  n.insert(n.end(), desc.begin(), desc.end());
  while (n.size() % 4 != 0) n.push_back(0);
  return n;
}

inline Blob BuildCodeObject(const std::vector<AmdKernelSpec>& kernels) {
  return BuildElf(224, {{".note", 7, NoteFor(MetadataFor(kernels))}, {".text", 1, Blob(16, 0)}});
}

// A clang offload bundle of (triple, payload) entries.
inline Blob BuildOffloadBundle(const std::vector<std::pair<std::string, Blob>>& entries) {
  Blob b;
  const std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
  b.insert(b.end(), magic.begin(), magic.end());
  Put<uint64_t>(b, entries.size());
  uint64_t header = b.size();
  for (const auto& [triple, payload] : entries) header += 24 + triple.size();
  uint64_t at = (header + 4095) / 4096 * 4096;
  std::vector<uint64_t> offsets;
  for (const auto& [triple, payload] : entries) {
    offsets.push_back(at);
    Put<uint64_t>(b, at);
    Put<uint64_t>(b, payload.size());
    Put<uint64_t>(b, triple.size());
    b.insert(b.end(), triple.begin(), triple.end());
    at = (at + payload.size() + 4095) / 4096 * 4096;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    b.resize(offsets[i], 0);
    b.insert(b.end(), entries[i].second.begin(), entries[i].second.end());
  }
  return b;
}

}  // namespace gpuops::testing
