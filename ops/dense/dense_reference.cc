#include "ops/dense/dense_reference.h"

#include <cmath>
#include <vector>

#include "gpuops/runtime/bf16.h"

namespace gpuops::ops::dense {

void ReferenceStrict(absl::Span<const uint16_t> a, absl::Span<const uint16_t> b, uint32_t m,
                     uint32_t n, uint32_t k, uint32_t ldb, absl::Span<uint16_t> c) {
  // k outer, columns inner: each column's sum still runs over k in order, and the inner loop has
  // independent sums the compiler can vectorize.
  std::vector<float> bt(static_cast<size_t>(k) * n);
  for (uint32_t j = 0; j < n; ++j) {
    for (uint32_t i = 0; i < k; ++i)
      bt[static_cast<size_t>(i) * n + j] = Bf16ToFloat(b[size_t{j} * ldb + i]);
  }
  std::vector<float> acc(n);
  for (uint32_t r = 0; r < m; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (uint32_t i = 0; i < k; ++i) {
      const float av = Bf16ToFloat(a[size_t{r} * k + i]);
      const float* row = &bt[static_cast<size_t>(i) * n];
      for (uint32_t j = 0; j < n; ++j) {
        const float product = av * row[j];
        acc[j] = acc[j] + product;
      }
    }
    for (uint32_t j = 0; j < n; ++j) c[size_t{r} * n + j] = FloatToBf16(acc[j]);
  }
}

void ReferenceFloat64(absl::Span<const uint16_t> a, absl::Span<const uint16_t> b, uint32_t m,
                      uint32_t k, uint32_t ldb, absl::Span<const uint32_t> cols,
                      absl::Span<double> value, absl::Span<double> abs_sum) {
  const size_t nc = cols.size();
  std::vector<double> bt(static_cast<size_t>(k) * nc);
  for (size_t j = 0; j < nc; ++j) {
    for (uint32_t i = 0; i < k; ++i) {
      bt[static_cast<size_t>(i) * nc + j] = Bf16ToFloat(b[size_t{cols[j]} * ldb + i]);
    }
  }
  for (uint32_t r = 0; r < m; ++r) {
    double* v = &value[size_t{r} * nc];
    double* s = &abs_sum[size_t{r} * nc];
    std::fill(v, v + nc, 0.0);
    std::fill(s, s + nc, 0.0);
    for (uint32_t i = 0; i < k; ++i) {
      const double av = Bf16ToFloat(a[size_t{r} * k + i]);
      const double* row = &bt[static_cast<size_t>(i) * nc];
      for (size_t j = 0; j < nc; ++j) {
        const double p = av * row[j];
        v[j] += p;
        s[j] += std::fabs(p);
      }
    }
  }
}

}  // namespace gpuops::ops::dense
