#include "gpuops/runtime/amd_code_object.h"

#include <algorithm>
#include <limits>

#include "byte_reader.h"
#include "gpuops/runtime/str.h"
#include "gpuops/runtime/types.h"

namespace gpuops::metadata {
namespace {

using internal::Fits;
using internal::Malformed;
using internal::Read;

constexpr uint32_t kShtNote = 7;
constexpr int kMaxMsgpackDepth = 32;

}  // namespace

// --- Offload bundle

std::string OffloadBundleEntry::arch() const {
  const size_t at = triple.rfind("--");
  if (!triple.starts_with("hip") || at == std::string::npos) return "";
  return triple.substr(at + 2);
}

absl::StatusOr<std::vector<OffloadBundleEntry>> ParseOffloadBundle(Bytes b) {
  const uint64_t magic_size = kOffloadBundleMagic.size();
  if (b.size() < magic_size ||
      std::string_view(reinterpret_cast<const char*>(b.data()), magic_size) != kOffloadBundleMagic) {
    return Malformed(StrCat("offload bundle: no \"", kOffloadBundleMagic, "\" magic at offset 0"));
  }
  uint64_t count = 0;
  if (!Read(b, magic_size, &count)) {
    return Malformed(StrCat("offload bundle: ", b.size(), " bytes, too short for the entry count"));
  }
  // Each entry descriptor takes at least 24 bytes: a count beyond that is a lie.
  if (count > (b.size() - magic_size - 8) / 24) {
    return Malformed(StrCat("offload bundle: ", count, " entries cannot fit in ", b.size(),
                            " bytes"));
  }
  std::vector<OffloadBundleEntry> out;
  uint64_t at = magic_size + 8;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t offset = 0, size = 0, triple_size = 0;
    if (!Read(b, at, &offset) || !Read(b, at + 8, &size) || !Read(b, at + 16, &triple_size) ||
        !Fits(at + 24, triple_size, b.size())) {
      return Malformed(StrCat("offload bundle: entry ", i, " descriptor at offset ", at,
                              " runs past the end (", b.size(), " bytes)"));
    }
    OffloadBundleEntry e;
    e.triple.assign(reinterpret_cast<const char*>(b.data() + at + 24), triple_size);
    if (!Fits(offset, size, b.size())) {
      return Malformed(StrCat("offload bundle: entry ", i, " (", e.triple, ") payload [", offset,
                              ", +", size, ") lies outside the ", b.size(), "-byte bundle"));
    }
    e.offset = offset;
    e.payload = b.subspan(offset, size);
    out.push_back(std::move(e));
    at += 24 + triple_size;
  }
  return out;
}

absl::StatusOr<OffloadBundleEntry> SelectCodeObject(const std::vector<OffloadBundleEntry>& entries,
                                                    std::string_view arch) {
  std::string archs;
  for (const OffloadBundleEntry& e : entries) {
    if (e.arch() == arch) return e;
    if (!e.arch().empty()) StrAppend(&archs, archs.empty() ? "" : ", ", e.arch());
  }
  return absl::NotFoundError(StrCat("offload bundle: no code object for ", arch, " (it has: ",
                                    archs.empty() ? "none" : archs, ")"));
}

// --- msgpack

const MsgpackValue* MsgpackValue::Find(std::string_view key) const {
  if (kind_ != Kind::kMap) return nullptr;
  for (const auto& [k, v] : entries_) {
    if (k.kind_ == Kind::kString && k.str_ == key) return &v;
  }
  return nullptr;
}

// A cursor over big-endian msgpack bytes.
class MsgpackReader {
 public:
  explicit MsgpackReader(Bytes b) : b_(b) {}

  uint64_t position() const { return at_; }

  absl::StatusOr<MsgpackValue> Value(int depth) {
    if (depth > kMaxMsgpackDepth) {
      return Malformed(StrCat("msgpack: nesting deeper than ", kMaxMsgpackDepth, " at offset ",
                              at_));
    }
    const uint64_t start = at_;
    uint64_t tag = 0;
    if (!Big(1, &tag)) return Malformed(StrCat("msgpack: value expected at offset ", at_));
    MsgpackValue v;
    if (tag <= 0x7f || tag >= 0xe0) {  // fixints
      v.kind_ = MsgpackValue::Kind::kInt;
      v.int_ = tag <= 0x7f ? static_cast<int64_t>(tag) : static_cast<int64_t>(tag) - 256;
      return v;
    }
    if (tag >= 0x80 && tag <= 0x8f) return Map(tag & 0x0f, depth, std::move(v));
    if (tag >= 0x90 && tag <= 0x9f) return Array(tag & 0x0f, depth, std::move(v));
    if (tag >= 0xa0 && tag <= 0xbf) return String(tag & 0x1f, MsgpackValue::Kind::kString);
    uint64_t n = 0;
    switch (tag) {
      case 0xc0:
        return v;
      case 0xc2:
      case 0xc3:
        v.kind_ = MsgpackValue::Kind::kBool;
        v.bool_ = tag == 0xc3;
        return v;
      case 0xc4: case 0xc5: case 0xc6:  // bin 8/16/32
        if (!Big(1u << (tag - 0xc4), &n)) break;
        return String(n, MsgpackValue::Kind::kBinary);
      case 0xca: case 0xcb:  // float 32/64: skipped, kept as a kind only
        if (!Skip(tag == 0xca ? 4 : 8)) break;
        v.kind_ = MsgpackValue::Kind::kFloat;
        return v;
      case 0xcc: case 0xcd: case 0xce: case 0xcf: {  // uint 8..64
        if (!Big(1u << (tag - 0xcc), &n)) break;
        if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Malformed(StrCat("msgpack: unsigned ", n, " at offset ", start,
                                  " exceeds the int64 range"));
        }
        v.kind_ = MsgpackValue::Kind::kInt;
        v.int_ = static_cast<int64_t>(n);
        return v;
      }
      case 0xd0: case 0xd1: case 0xd2: case 0xd3: {  // int 8..64
        const uint32_t width = 1u << (tag - 0xd0);
        if (!Big(width, &n)) break;
        v.kind_ = MsgpackValue::Kind::kInt;
        const uint32_t shift = 64 - 8 * width;
        v.int_ = static_cast<int64_t>(n << shift) >> shift;  // sign-extend
        return v;
      }
      case 0xd9: case 0xda: case 0xdb:  // str 8/16/32
        if (!Big(1u << (tag - 0xd9), &n)) break;
        return String(n, MsgpackValue::Kind::kString);
      case 0xdc: case 0xdd:  // array 16/32
        if (!Big(tag == 0xdc ? 2 : 4, &n)) break;
        return Array(n, depth, std::move(v));
      case 0xde: case 0xdf:  // map 16/32
        if (!Big(tag == 0xde ? 2 : 4, &n)) break;
        return Map(n, depth, std::move(v));
      default:
        return Malformed(StrCat("msgpack: unsupported type byte 0x", Hex(tag), " at offset ",
                                start));
    }
    return Malformed(StrCat("msgpack: value of type 0x", Hex(tag), " at offset ", start,
                            " runs past the end (", b_.size(), " bytes)"));
  }

 private:
  bool Big(uint32_t width, uint64_t* out) {
    if (!Fits(at_, width, b_.size())) return false;
    uint64_t v = 0;
    for (uint32_t i = 0; i < width; ++i) v = (v << 8) | b_[at_ + i];
    at_ += width;
    *out = v;
    return true;
  }
  bool Skip(uint64_t n) {
    if (!Fits(at_, n, b_.size())) return false;
    at_ += n;
    return true;
  }
  absl::StatusOr<MsgpackValue> String(uint64_t n, MsgpackValue::Kind kind) {
    if (!Fits(at_, n, b_.size())) {
      return Malformed(StrCat("msgpack: ", n, "-byte string at offset ", at_,
                              " runs past the end (", b_.size(), " bytes)"));
    }
    MsgpackValue v;
    v.kind_ = kind;
    v.str_.assign(reinterpret_cast<const char*>(b_.data() + at_), n);
    at_ += n;
    return v;
  }
  // Each element takes at least one byte: a count beyond what is left is refused up front.
  absl::Status CountFits(uint64_t n, uint64_t per, std::string_view what) {
    if (n > (b_.size() - at_) / per) {
      return Malformed(StrCat("msgpack: ", what, " of ", n, " at offset ", at_,
                              " cannot fit in the ", b_.size() - at_, " bytes left"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<MsgpackValue> Array(uint64_t n, int depth, MsgpackValue v) {
    if (absl::Status s = CountFits(n, 1, "array"); !s.ok()) return s;
    v.kind_ = MsgpackValue::Kind::kArray;
    v.items_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      absl::StatusOr<MsgpackValue> item = Value(depth + 1);
      if (!item.ok()) return item.status();
      v.items_.push_back(*std::move(item));
    }
    return v;
  }
  absl::StatusOr<MsgpackValue> Map(uint64_t n, int depth, MsgpackValue v) {
    if (absl::Status s = CountFits(n, 2, "map"); !s.ok()) return s;
    v.kind_ = MsgpackValue::Kind::kMap;
    v.entries_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      absl::StatusOr<MsgpackValue> key = Value(depth + 1);
      if (!key.ok()) return key.status();
      absl::StatusOr<MsgpackValue> value = Value(depth + 1);
      if (!value.ok()) return value.status();
      v.entries_.emplace_back(*std::move(key), *std::move(value));
    }
    return v;
  }

  Bytes b_;
  uint64_t at_ = 0;
};

absl::StatusOr<MsgpackValue> ParseMsgpack(Bytes bytes) {
  MsgpackReader reader(bytes);
  absl::StatusOr<MsgpackValue> v = reader.Value(0);
  if (!v.ok()) return v.status();
  for (uint64_t i = reader.position(); i < bytes.size(); ++i) {
    if (bytes[i] != 0) {
      return Malformed(StrCat("msgpack: ", bytes.size() - reader.position(),
                              " bytes after the value at offset ", reader.position(),
                              " are not zero padding"));
    }
  }
  return v;
}

// --- AMDGPU code object

namespace {

// The metadata note's msgpack bytes.
absl::StatusOr<Bytes> MetadataNote(const ElfFile& elf) {
  for (const ElfSection& s : elf.sections()) {
    if (s.type != kShtNote) continue;
    uint64_t at = 0;
    while (at < s.data.size()) {
      uint32_t namesz = 0, descsz = 0, type = 0;
      if (!Read(s.data, at, &namesz) || !Read(s.data, at + 4, &descsz) ||
          !Read(s.data, at + 8, &type)) {
        return Malformed(StrCat("AMDGPU code object: note header at offset ", at, " of ", s.name,
                                " runs past the section (", s.data.size(), " bytes)"));
      }
      const uint64_t name_at = at + 12;
      const uint64_t desc_at = name_at + AlignUp(namesz, 4);
      if (!Fits(name_at, AlignUp(namesz, 4), s.data.size()) ||
          !Fits(desc_at, descsz, s.data.size())) {
        return Malformed(StrCat("AMDGPU code object: note at offset ", at, " of ", s.name,
                                " (name ", namesz, " bytes, desc ", descsz,
                                " bytes) runs past the section (", s.data.size(), " bytes)"));
      }
      const std::string_view name(reinterpret_cast<const char*>(s.data.data() + name_at),
                                  namesz);
      if (type == kNtAmdgpuMetadata && (name == std::string_view("AMDGPU\0", 7) ||
                                        name == "AMDGPU")) {
        return s.data.subspan(desc_at, descsz);
      }
      at = desc_at + AlignUp(descsz, 4);
    }
  }
  return Malformed("AMDGPU code object: no NT_AMDGPU_METADATA note (type 32, name AMDGPU)");
}

absl::StatusOr<int64_t> IntField(const MsgpackValue& map, std::string_view key,
                                 std::string_view where) {
  const MsgpackValue* v = map.Find(key);
  if (v == nullptr || v->kind() != MsgpackValue::Kind::kInt || v->integer() < 0 ||
      v->integer() > std::numeric_limits<uint32_t>::max()) {
    return Malformed(StrCat("AMDGPU metadata: ", where, " has no ", key,
                            " as a non-negative 32-bit integer"));
  }
  return v->integer();
}

absl::StatusOr<AmdKernel> ReadKernel(const MsgpackValue& k, size_t index) {
  const MsgpackValue* name = k.Find(".name");
  if (k.kind() != MsgpackValue::Kind::kMap || name == nullptr ||
      name->kind() != MsgpackValue::Kind::kString || name->string().empty()) {
    return Malformed(StrCat("AMDGPU metadata: amdhsa.kernels[", index,
                            "] is not a map with a .name string"));
  }
  AmdKernel out{.name = name->string()};
  const std::string where = StrCat("kernel ", out.name);
  absl::StatusOr<int64_t> kernarg = IntField(k, ".kernarg_segment_size", where);
  if (!kernarg.ok()) return kernarg.status();
  out.kernarg_segment_size = static_cast<uint32_t>(*kernarg);
  const MsgpackValue* args = k.Find(".args");
  if (args == nullptr) return out;  // a kernel without arguments
  if (args->kind() != MsgpackValue::Kind::kArray) {
    return Malformed(StrCat("AMDGPU metadata: ", where, ": .args is not an array"));
  }
  for (size_t i = 0; i < args->array().size(); ++i) {
    const MsgpackValue& a = args->array()[i];
    const std::string arg_where = StrCat(where, " .args[", i, "]");
    const MsgpackValue* kind = a.Find(".value_kind");
    if (kind == nullptr || kind->kind() != MsgpackValue::Kind::kString) {
      return Malformed(StrCat("AMDGPU metadata: ", arg_where, " has no .value_kind string"));
    }
    absl::StatusOr<int64_t> offset = IntField(a, ".offset", arg_where);
    if (!offset.ok()) return offset.status();
    absl::StatusOr<int64_t> size = IntField(a, ".size", arg_where);
    if (!size.ok()) return size.status();
    if (*offset + *size > out.kernarg_segment_size) {
      return Malformed(StrCat("AMDGPU metadata: ", arg_where, " [", *offset, ", +", *size,
                              ") lies past the kernarg segment (", out.kernarg_segment_size,
                              " bytes)"));
    }
    if (kind->string().starts_with("hidden_")) {
      ++out.hidden_args;
      continue;
    }
    const MsgpackValue* arg_name = a.Find(".name");
    out.params.push_back(
        {.name = arg_name != nullptr && arg_name->kind() == MsgpackValue::Kind::kString &&
                         !arg_name->string().empty()
                     ? arg_name->string()
                     : StrCat("#", out.params.size()),
         .offset = static_cast<uint32_t>(*offset),
         .size = static_cast<uint32_t>(*size)});
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<AmdKernel>> ReadAmdKernels(Bytes code_object) {
  absl::StatusOr<ElfFile> elf = ElfFile::Parse(code_object);
  if (!elf.ok()) return elf.status();
  if (elf->machine() != kElfMachineAmdgpu) {
    return Malformed(StrCat("AMDGPU code object: e_machine ", elf->machine(), ", expected ",
                            kElfMachineAmdgpu));
  }
  absl::StatusOr<Bytes> note = MetadataNote(*elf);
  if (!note.ok()) return note.status();
  absl::StatusOr<MsgpackValue> root = ParseMsgpack(*note);
  if (!root.ok()) return root.status();
  const MsgpackValue* kernels = root->Find("amdhsa.kernels");
  if (kernels == nullptr || kernels->kind() != MsgpackValue::Kind::kArray) {
    return Malformed("AMDGPU metadata: no amdhsa.kernels array");
  }
  std::vector<AmdKernel> out;
  for (size_t i = 0; i < kernels->array().size(); ++i) {
    absl::StatusOr<AmdKernel> k = ReadKernel(kernels->array()[i], i);
    if (!k.ok()) return k.status();
    out.push_back(*std::move(k));
  }
  std::sort(out.begin(), out.end(),
            [](const AmdKernel& a, const AmdKernel& b) { return a.name < b.name; });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].name == out[i - 1].name) {
      return Malformed(StrCat("AMDGPU metadata: kernel ", out[i].name, " listed twice"));
    }
  }
  return out;
}

}  // namespace gpuops::metadata
