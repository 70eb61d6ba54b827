// Tensor maps: the descriptors Hopper's tensor memory accelerator (TMA) copies tiles with.
// Ops describe a tiled view of a global tensor; the backend encodes the 128-byte descriptor that
// the kernel takes by value (KernelLaunch::arg_bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

enum class TensorMapDataType : uint8_t { kU8, kBF16, kF16, kF32 };
enum class TensorMapSwizzle : uint8_t { kNone, k32B, k64B, k128B };

inline constexpr uint32_t kTensorMapMaxRank = 5;

uint32_t ElementBytes(TensorMapDataType type);

// A tiled view of a row-major tensor, dimensions listed innermost first. Out-of-bounds elements of
// a box read as zero.
struct TensorMapDesc {
  TensorMapDataType data_type = TensorMapDataType::kBF16;
  uint32_t rank = 2;
  DevicePtr global_address;
  std::array<uint64_t, kTensorMapMaxRank> global_dims{};
  // Byte stride of dims 1..rank-1 (dim 0 is contiguous); global_strides[0] is unused.
  std::array<uint64_t, kTensorMapMaxRank> global_strides{};
  std::array<uint32_t, kTensorMapMaxRank> box_dims{};
  TensorMapSwizzle swizzle = TensorMapSwizzle::kNone;
};

// A row-major 2-D tensor (`rows` rows of `cols` elements, `row_stride_bytes` apart) read in
// box_cols x box_rows boxes with the 128-byte swizzle: how the wgmma kernels load their operands.
inline TensorMapDesc RowMajorSwizzled128(TensorMapDataType type, DevicePtr base, uint64_t cols,
                                         uint64_t rows, uint64_t row_stride_bytes,
                                         uint32_t box_cols, uint32_t box_rows) {
  TensorMapDesc d;
  d.data_type = type;
  d.rank = 2;
  d.global_address = base;
  d.global_dims = {cols, rows};
  d.global_strides = {0, row_stride_bytes};
  d.box_dims = {box_cols, box_rows};
  d.swizzle = TensorMapSwizzle::k128B;
  return d;
}

// The encoded descriptor: 128 bytes, 64-byte aligned, as CUDA's CUtensorMap.
struct alignas(64) TensorMapBytes {
  std::array<std::byte, 128> bytes{};
};

// The limits the hardware documents: rank 1..5, 16-byte-aligned address and strides, box extents
// 1..256, inner box bytes a multiple of 16 and within the swizzle span. kInvalidArgument naming
// the field otherwise.
absl::Status ValidateTensorMapDesc(const TensorMapDesc& desc);

// The host form of a tensor map, handed out by backends without a TMA unit (the mock) so that
// host emulations of TMA kernels can read the view back. Not meaningful to a GPU.
TensorMapBytes EncodeHostTensorMap(const TensorMapDesc& desc);
absl::StatusOr<TensorMapDesc> DecodeHostTensorMap(const TensorMapBytes& bytes);

}  // namespace gpuops
