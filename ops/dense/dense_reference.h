// CPU references for the dense family's accuracy contracts (../shared/docs/numerics.md).
// Clear and exact in the stated order; compiled with -ffp-contract=off.
#pragma once

#include <cstdint>

#include "absl/types/span.h"

namespace gpuops::ops::dense {

// Bit-exact strict order: c[r, j] = bf16(acc), acc = 0 then acc = acc + a[r, i] * b[j, i] for
// i = 0..K-1 in FP32, one rounding per multiply and per add. B rows are ldb apart.
void ReferenceStrict(absl::Span<const uint16_t> a, absl::Span<const uint16_t> b, uint32_t m,
                     uint32_t n, uint32_t k, uint32_t ldb, absl::Span<uint16_t> c);

// Float64 dot products and Σ|a·b| for the listed columns only (the tensor-core bound's inputs):
// value[r * cols.size() + j] and abs_sum[...] for column cols[j].
void ReferenceFloat64(absl::Span<const uint16_t> a, absl::Span<const uint16_t> b, uint32_t m,
                      uint32_t k, uint32_t ldb, absl::Span<const uint32_t> cols,
                      absl::Span<double> value, absl::Span<double> abs_sum);

}  // namespace gpuops::ops::dense
