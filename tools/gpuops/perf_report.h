// `gpuops perf` results: one row per shape, and their CSV, JSON, text table and SVG plot.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpuops::tools {

struct PerfRow {
  std::string name;
  std::string family;
  uint32_t m = 0, n = 0, k = 0;
  std::string variant;
  double ours_us = NAN;
  double cublas_us = NAN;
  double tflops = NAN, tbps = NAN, roof_fraction = NAN;
  double cublas_tflops = NAN, cublas_tbps = NAN;
  double agreement = NAN;  // relative Frobenius distance between our C and cuBLAS's
  // How far each median moved between the two halves of its (interleaved) samples, relative to
  // the median: a ratio is trustworthy to about the larger of the two.
  double ours_spread = NAN;
  double cublas_spread = NAN;
  // The same-size read: a read-only streaming kernel over exactly the row's fewest bytes, timed
  // like ours in the same run (what one launch of that size can do), and its spread; NaN when not
  // measured (--no-read, or a subject without bytes).
  double read_us = NAN;
  double read_spread = NAN;
  // --versus: another family's dispatcher on the same shape (e.g. our BF16 dense against an FP8
  // row), timed interleaved with ours; its family, variant, time and spread. Empty family: none.
  std::string versus_family;
  std::string versus_variant;
  double versus_us = NAN;
  double versus_spread = NAN;
  std::string note;

  double speedup() const { return cublas_us / ours_us; }      // > 1: ours is faster
  double read_fraction() const { return read_us / ours_us; }  // > 1: ours beats the read
  double versus_ratio() const { return versus_us / ours_us; }  // > 1: ours beats the other
};

struct PerfReport {
  std::string device;
  std::string cublas;
  double read_roof_tbps = NAN;
  int batch = 1;  // launches per timed sample
  bool weight_settled = false;  // perf --weight-settled
  std::vector<PerfRow> rows;

  // Csv() is CsvHeader() followed by CsvRow(row) for every row: `gpuops perf --csv` writes the
  // header first and each row as it is measured, so a run cut short keeps what it measured.
  std::string Csv() const;
  static std::string CsvHeader();
  std::string CsvRow(const PerfRow& r) const;
  std::string Json() const;
  // Two panels: speedup over cuBLAS per shape, and both times on a log scale.
  std::string Svg() const;
  // A heat map: one row per shape name (with its N and K), one column per M, each cell coloured
  // by the speedup over cuBLAS (red below 0.95x, white at 1, green above) and labelled with it.
  std::string Heatmap() const;
  // "speedup over cuBLAS on 920 rows: min 0.48x (qkv M=33), median 1.01x, geomean 0.98x; 120
  // below 0.95x, 3 below 0.80x; median of same-size read 0.91 on 920 rows"; rows without both
  // times are left out and counted; the last clause only where some row has a same-size read.
  std::string Summary() const;
};

std::string FormatRow(const PerfRow& row);

std::string FormatTable(const PerfReport& report);

// The order `gpuops perf` measures its rows in, as (op index, problem index) pairs: problem by
// problem, and each problem's ops in their given order (a family's dispatcher first). So the rows
// that compare ops on one shape are timed seconds apart, not minutes, and a weight shape's random
// weights are made once for all its ops rather than once an op. `problem_selected[i]`: whether
// --only keeps problem i.
std::vector<std::pair<size_t, size_t>> MeasureOrder(size_t ops,
                                                    const std::vector<bool>& problem_selected);

}  // namespace gpuops::tools
