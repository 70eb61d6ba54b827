#include "perf_report.h"

#include <algorithm>
#include <cstdio>

#include "gpuops/runtime/str.h"
#include "nlohmann/json.hpp"

namespace gpuops::tools {
namespace {

// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, quote or newline.
std::string CsvField(std::string_view v) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Text for an SVG element: &, < and > escaped.
std::string XmlText(std::string_view v) {
  std::string out;
  for (char c : v) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string Label(const PerfRow& r) { return XmlText(StrCat(r.name, " M=", r.m)); }

}  // namespace

std::string FormatRow(const PerfRow& r) {
  char buf[320];
  std::snprintf(
      buf, sizeof(buf),
      "%-8s M=%-5u N=%-6u K=%-5u %-13s ours %9s us  cuBLAS %9s us  x%-5s  %7s TFLOP/s  "
      "%5s TB/s  %5s%% roof  agree %s",
      r.name.c_str(), r.m, r.n, r.k, r.variant.c_str(), Fixed(r.ours_us, 1).c_str(),
      Fixed(r.cublas_us, 1).c_str(), Fixed(r.speedup(), 2).c_str(), Fixed(r.tflops, 1).c_str(),
      Fixed(r.tbps, 2).c_str(), Fixed(100 * r.roof_fraction, 1).c_str(),
      std::isfinite(r.agreement) ? StrCat(Fixed(r.agreement * 1e3, 2), "e-3").c_str() : "-");
  return r.note.empty() ? buf : StrCat(buf, "  (", r.note, ")");
}

std::string FormatTable(const PerfReport& report) {
  std::string out = StrCat(
      "| shape | M | N | K | variant | ours µs | cuBLAS µs | speedup | TFLOP/s | TB/s | % of read "
      "roof (",
      Fixed(report.read_roof_tbps, 2), " TB/s) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const PerfRow& r : report.rows) {
    StrAppend(&out, "| ", r.name, " | ", r.m, " | ", r.n, " | ", r.k, " | ", r.variant, " | ",
              Fixed(r.ours_us, 1), " | ", Fixed(r.cublas_us, 1), " | ", Fixed(r.speedup(), 2),
              " | ", Fixed(r.tflops, 1), " | ", Fixed(r.tbps, 2), " | ",
              Fixed(100 * r.roof_fraction, 1), " |\n");
  }
  return out;
}

std::string PerfReport::Csv() const {
  std::string out =
      "shape,family,m,n,k,variant,ours_us,cublas_us,speedup,tflops,tbps,roof_fraction,"
      "cublas_tflops,cublas_tbps,agreement,read_roof_tbps,launches_per_sample,note\n";
  for (const PerfRow& r : rows) {
    StrAppend(&out, CsvField(r.name), ",", CsvField(r.family), ",", r.m, ",", r.n, ",", r.k, ",",
              CsvField(r.variant), ",", Fixed(r.ours_us, 2), ",", Fixed(r.cublas_us, 2), ",",
              Fixed(r.speedup(), 4), ",", Fixed(r.tflops, 2), ",", Fixed(r.tbps, 3), ",",
              Fixed(r.roof_fraction, 4), ",", Fixed(r.cublas_tflops, 2), ",",
              Fixed(r.cublas_tbps, 3), ",", std::isfinite(r.agreement) ? StrCat(r.agreement) : "",
              ",", Fixed(read_roof_tbps, 3), ",", batch, ",", CsvField(r.note), "\n");
  }
  return out;
}

std::string PerfReport::Json() const {
  // Non-finite figures (not measured) are null.
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json out_rows = nlohmann::json::array();
  for (const PerfRow& r : rows) {
    out_rows.push_back({{"shape", r.name},
                        {"family", r.family},
                        {"m", r.m},
                        {"n", r.n},
                        {"k", r.k},
                        {"variant", r.variant},
                        {"ours_us", number(r.ours_us)},
                        {"cublas_us", number(r.cublas_us)},
                        {"speedup", number(r.speedup())},
                        {"tflops", number(r.tflops)},
                        {"tbps", number(r.tbps)},
                        {"roof_fraction", number(r.roof_fraction)},
                        {"agreement", number(r.agreement)},
                        {"note", r.note}});
  }
  nlohmann::json doc = {{"device", device},
                        {"cublaslt", cublas},
                        {"read_roof_tbps", number(read_roof_tbps)},
                        {"launches_per_sample", batch},
                        {"rows", std::move(out_rows)}};
  return doc.dump(2) + "\n";
}

std::string PerfReport::Svg() const {
  const int n = static_cast<int>(rows.size());
  const int bar = 18;
  const int left = 170;
  const int width = 980;
  const int panel = n * bar + 60;
  const int height = 2 * panel + 60;
  std::string s =
      StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width, "\" height=\"", height,
             "\" font-family=\"sans-serif\" font-size=\"11\">\n",
             "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  StrAppend(&s, "<text x=\"10\" y=\"20\" font-size=\"14\">gpuops vs cuBLASLt on ", XmlText(device),
            " (read roof ", Fixed(read_roof_tbps, 2), " TB/s)</text>\n");
  // Panel 1: speedup = cuBLAS time / our time, linear 0..max, a line at 1.
  double max_speedup = 1.5;
  for (const PerfRow& r : rows) {
    if (std::isfinite(r.speedup())) max_speedup = std::max(max_speedup, r.speedup());
  }
  const int plot_w = width - left - 190;  // room for the value labels right of the bars
  int y0 = 50;
  StrAppend(&s, "<text x=\"", left, "\" y=\"", y0 - 8,
            "\">speedup over cuBLASLt (cuBLAS µs / ours µs); right of the line = faster</text>\n");
  const int one_x = left + static_cast<int>(plot_w / max_speedup);
  for (int i = 0; i < n; ++i) {
    const PerfRow& r = rows[i];
    const int y = y0 + i * bar;
    StrAppend(&s, "<text x=\"", left - 6, "\" y=\"", y + 12, "\" text-anchor=\"end\">", Label(r),
              "</text>\n");
    if (!std::isfinite(r.speedup())) continue;
    const int w = static_cast<int>(plot_w * r.speedup() / max_speedup);
    StrAppend(&s, "<rect x=\"", left, "\" y=\"", y + 2, "\" width=\"", w, "\" height=\"", bar - 4,
              "\" fill=\"", r.speedup() >= 1.0 ? "#3a9e4f" : "#d0473c", "\"/>\n");
    StrAppend(&s, "<text x=\"", left + w + 4, "\" y=\"", y + 12, "\">", Fixed(r.speedup(), 2), "x ",
              XmlText(r.variant), "</text>\n");
  }
  StrAppend(&s, "<line x1=\"", one_x, "\" y1=\"", y0, "\" x2=\"", one_x, "\" y2=\"", y0 + n * bar,
            "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n");
  // Panel 2: both times, log scale.
  y0 += panel;
  double lo = 1e30;
  double hi = 0;
  for (const PerfRow& r : rows) {
    for (double t : {r.ours_us, r.cublas_us}) {
      if (std::isfinite(t) && t > 0) {
        lo = std::min(lo, t);
        hi = std::max(hi, t);
      }
    }
  }
  if (hi <= 0) return s + "</svg>\n";
  const double llo = std::floor(std::log10(lo));
  const double lhi =
      std::ceil(std::log10(hi)) + (std::ceil(std::log10(hi)) == std::floor(std::log10(lo)) ? 1 : 0);
  auto x_of = [&](double t) {
    return left + static_cast<int>(plot_w * (std::log10(t) - llo) / (lhi - llo));
  };
  StrAppend(&s, "<text x=\"", left, "\" y=\"", y0 - 8,
            "\">time per GEMM, µs, log scale: ours (blue) and cuBLASLt (grey)</text>\n");
  for (double d = llo; d <= lhi; d += 1) {
    const int x = x_of(std::pow(10, d));
    StrAppend(&s, "<line x1=\"", x, "\" y1=\"", y0, "\" x2=\"", x, "\" y2=\"", y0 + n * bar,
              "\" stroke=\"#ddd\"/><text x=\"", x, "\" y=\"", y0 + n * bar + 14,
              "\" text-anchor=\"middle\">", Fixed(std::pow(10, d), 0), "</text>\n");
  }
  for (int i = 0; i < n; ++i) {
    const PerfRow& r = rows[i];
    const int y = y0 + i * bar;
    StrAppend(&s, "<text x=\"", left - 6, "\" y=\"", y + 12, "\" text-anchor=\"end\">", Label(r),
              "</text>\n");
    if (std::isfinite(r.ours_us)) {
      StrAppend(&s, "<rect x=\"", left, "\" y=\"", y + 2, "\" width=\"", x_of(r.ours_us) - left,
                "\" height=\"", (bar - 4) / 2, "\" fill=\"#3b6fb6\"/>\n");
    }
    if (std::isfinite(r.cublas_us)) {
      StrAppend(&s, "<rect x=\"", left, "\" y=\"", y + 2 + (bar - 4) / 2, "\" width=\"",
                x_of(r.cublas_us) - left, "\" height=\"", (bar - 4) / 2, "\" fill=\"#999\"/>\n");
    }
  }
  return s + "</svg>\n";
}

}  // namespace gpuops::tools
