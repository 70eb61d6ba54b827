// How the wgmma _classes kernels see a B that TMA cannot describe as one tensor (its base not
// 16-byte aligned, or ldb not a multiple of 8): as eight row classes (ClassTiles in
// cuda/dense_tiles.h). The rows n = r (mod 8) lie 8 ldb elements = 16 ldb bytes apart, so class r
// is a [ceil((N - r) / 8), K + shift] tensor of its own: its base is the 16-byte block holding
// row r's first element, `shift` elements before it, and its rows are K + shift wide, so TMA
// zero-fills past each row's end exactly as for an aligned B. The launcher, the host emulation
// and the tests compute the classes here; the kernel gets the shifts packed 3 bits a class
// (PackShifts).
#pragma once

#include <array>
#include <cstdint>

#include "ops/dense/cuda/dense_tiles.h"

namespace gpuops::ops::dense {

struct RowClass {
  uint64_t address = 0;       // 16-byte aligned, `shift` elements before the class's first row
  uint32_t shift = 0;         // 0..7
  uint32_t rows = 0;          // the class's rows: ceil((N - r) / 8)
  uint64_t stride_bytes = 0;  // 16 ldb
  friend constexpr bool operator==(const RowClass&, const RowClass&) = default;
};

// Class r of a B at byte address `b` (2-byte aligned) with N rows ldb elements apart. Where N <= r
// (fewer than 8 rows) the class is empty and class 0 stands in: its tiles' columns all lie past
// N, so nothing of them is stored.
constexpr RowClass RowClassOf(uint64_t b, uint32_t ldb, uint32_t n, uint32_t r) {
  if (n <= r) r = 0;
  const uint64_t aligned = b & ~uint64_t{15};
  const uint64_t first = (b - aligned) / 2 + uint64_t{r} * ldb;  // elements from `aligned`
  RowClass c;
  c.shift = static_cast<uint32_t>(first % 8);
  c.address = aligned + 2 * (first - c.shift);
  c.rows = static_cast<uint32_t>((uint64_t{n} - r + ClassTiles::kClasses - 1) /
                                 ClassTiles::kClasses);
  c.stride_bytes = uint64_t{16} * ldb;
  return c;
}

constexpr std::array<RowClass, ClassTiles::kClasses> RowClassesOf(uint64_t b, uint32_t ldb,
                                                                  uint32_t n) {
  std::array<RowClass, ClassTiles::kClasses> classes{};
  for (uint32_t r = 0; r < ClassTiles::kClasses; ++r) classes[r] = RowClassOf(b, ldb, n, r);
  return classes;
}

// The kernel's b_shifts argument: class r's shift in bits [3 r, 3 r + 3) (ClassTiles::ShiftOf).
constexpr uint32_t PackShifts(const std::array<RowClass, ClassTiles::kClasses>& classes) {
  uint32_t bits = 0;
  for (uint32_t r = 0; r < ClassTiles::kClasses; ++r) bits |= classes[r].shift << (3 * r);
  return bits;
}

}  // namespace gpuops::ops::dense
