#include "gpuops/runtime/tensor_map.h"

#include <cstring>

#include "gpuops/runtime/str.h"

namespace gpuops {
namespace {

// Host form: magic, then the descriptor's fields in a fixed little-endian layout.
constexpr uint64_t kHostMagic = 0x50414d54534f4847ull;  // "GHOSTMAP"

uint32_t SwizzleSpanBytes(TensorMapSwizzle s) {
  switch (s) {
    case TensorMapSwizzle::kNone:
      return 0;
    case TensorMapSwizzle::k32B:
      return 32;
    case TensorMapSwizzle::k64B:
      return 64;
    case TensorMapSwizzle::k128B:
      return 128;
  }
  return 0;
}

}  // namespace

uint32_t ElementBytes(TensorMapDataType type) {
  switch (type) {
    case TensorMapDataType::kU8:
      return 1;
    case TensorMapDataType::kBF16:
    case TensorMapDataType::kF16:
      return 2;
    case TensorMapDataType::kF32:
      return 4;
  }
  return 0;
}

absl::Status ValidateTensorMapDesc(const TensorMapDesc& d) {
  auto error = [](std::string what) {
    return absl::InvalidArgumentError(StrCat("tensor map: ", what));
  };
  if (d.rank < 1 || d.rank > kTensorMapMaxRank) {
    return error(StrCat("rank ", d.rank, " is outside 1..", kTensorMapMaxRank));
  }
  if (ElementBytes(d.data_type) == 0) return error("unknown data type");
  if (d.global_address.is_null() || d.global_address.address() % 16 != 0) {
    return error(
        StrCat("global address 0x", Hex(d.global_address.address()), " is not 16-byte aligned"));
  }
  for (uint32_t i = 0; i < d.rank; ++i) {
    if (d.global_dims[i] == 0 || d.global_dims[i] > (uint64_t{1} << 32)) {
      return error(StrCat("global_dims[", i, "] = ", d.global_dims[i], " is outside 1..2^32"));
    }
    if (d.box_dims[i] == 0 || d.box_dims[i] > 256) {
      return error(StrCat("box_dims[", i, "] = ", d.box_dims[i], " is outside 1..256"));
    }
    if (i > 0 && (d.global_strides[i] % 16 != 0 || d.global_strides[i] == 0 ||
                  d.global_strides[i] >= (uint64_t{1} << 40))) {
      return error(StrCat("global_strides[", i, "] = ", d.global_strides[i],
                          " is not a non-zero multiple of 16 below 2^40"));
    }
  }
  const uint64_t inner_bytes = uint64_t{d.box_dims[0]} * ElementBytes(d.data_type);
  if (inner_bytes % 16 != 0) {
    return error(StrCat("inner box extent is ", inner_bytes, " bytes, not a multiple of 16"));
  }
  const uint32_t span = SwizzleSpanBytes(d.swizzle);
  if (span != 0 && inner_bytes > span) {
    return error(StrCat("inner box extent is ", inner_bytes, " bytes, over the ", span,
                        "-byte swizzle span"));
  }
  return absl::OkStatus();
}

TensorMapBytes EncodeHostTensorMap(const TensorMapDesc& d) {
  TensorMapBytes out;
  std::byte* p = out.bytes.data();
  auto put = [&p](const auto& v) {
    std::memcpy(p, &v, sizeof(v));
    p += sizeof(v);
  };
  put(kHostMagic);
  put(static_cast<uint8_t>(d.data_type));
  put(static_cast<uint8_t>(d.rank));
  put(static_cast<uint8_t>(d.swizzle));
  put(uint8_t{0});
  put(uint32_t{0});
  put(d.global_address.address());
  for (uint32_t i = 0; i < kTensorMapMaxRank; ++i) put(d.global_dims[i]);
  for (uint32_t i = 1; i < kTensorMapMaxRank; ++i) put(d.global_strides[i]);
  for (uint32_t i = 0; i < kTensorMapMaxRank; ++i) put(d.box_dims[i]);
  return out;  // 8 + 8 + 8 + 40 + 32 + 20 = 116 bytes used
}

absl::StatusOr<TensorMapDesc> DecodeHostTensorMap(const TensorMapBytes& bytes) {
  const std::byte* p = bytes.bytes.data();
  auto get = [&p](auto& v) {
    std::memcpy(&v, p, sizeof(v));
    p += sizeof(v);
  };
  uint64_t magic = 0;
  get(magic);
  if (magic != kHostMagic) {
    return absl::InvalidArgumentError("tensor map: not a host-form tensor map (bad magic)");
  }
  TensorMapDesc d;
  uint8_t type = 0;
  uint8_t rank = 0;
  uint8_t swizzle = 0;
  uint8_t pad8 = 0;
  uint32_t pad32 = 0;
  uint64_t address = 0;
  get(type);
  get(rank);
  get(swizzle);
  get(pad8);
  get(pad32);
  get(address);
  if (type > static_cast<uint8_t>(TensorMapDataType::kF32) ||
      swizzle > static_cast<uint8_t>(TensorMapSwizzle::k128B)) {
    return absl::InvalidArgumentError("tensor map: corrupt host-form descriptor");
  }
  d.data_type = static_cast<TensorMapDataType>(type);
  d.rank = rank;
  d.swizzle = static_cast<TensorMapSwizzle>(swizzle);
  d.global_address = DevicePtr(address);
  for (uint32_t i = 0; i < kTensorMapMaxRank; ++i) get(d.global_dims[i]);
  for (uint32_t i = 1; i < kTensorMapMaxRank; ++i) get(d.global_strides[i]);
  for (uint32_t i = 0; i < kTensorMapMaxRank; ++i) get(d.box_dims[i]);
  if (absl::Status s = ValidateTensorMapDesc(d); !s.ok()) return s;
  return d;
}

}  // namespace gpuops
