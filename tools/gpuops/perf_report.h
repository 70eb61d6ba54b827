// `gpuops perf` results: one row per shape, and their CSV, JSON, text table and SVG plot.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
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
  std::string note;

  double speedup() const { return cublas_us / ours_us; }  // > 1: ours is faster
};

struct PerfReport {
  std::string device;
  std::string cublas;
  double read_roof_tbps = NAN;
  int batch = 1;  // launches per timed sample
  std::vector<PerfRow> rows;

  std::string Csv() const;
  std::string Json() const;
  // Two panels: speedup over cuBLAS per shape, and both times on a log scale.
  std::string Svg() const;
};

std::string FormatRow(const PerfRow& row);
std::string FormatTable(const PerfReport& report);

}  // namespace gpuops::tools
