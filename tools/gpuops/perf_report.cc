#include "perf_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

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

// The median of `v` (not empty).
double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// "; median of same-size read 0.91 on 12 rows" over the rows that have one; "" where none has.
std::string ReadClause(const std::vector<PerfRow>& rows) {
  std::vector<double> fractions;
  for (const PerfRow& r : rows) {
    if (std::isfinite(r.read_fraction()) && r.read_fraction() > 0) {
      fractions.push_back(r.read_fraction());
    }
  }
  if (fractions.empty()) return "";
  return StrCat("; median of same-size read ", Fixed(MedianOf(fractions), 2), " on ",
                fractions.size(), " rows");
}

// "; vs dense (its time / ours, interleaved): min 0.91 (qkv M=48), median 1.12, 2 of 30 rows
// below 1.00" over the rows timed against another family; "" where none was.
std::string VersusClause(const std::vector<PerfRow>& rows) {
  std::vector<double> ratios;
  const PerfRow* worst = nullptr;
  std::string families;
  for (const PerfRow& r : rows) {
    if (!std::isfinite(r.versus_ratio()) || r.versus_ratio() <= 0) continue;
    ratios.push_back(r.versus_ratio());
    if (worst == nullptr || r.versus_ratio() < worst->versus_ratio()) worst = &r;
    if (families.find(r.versus_family) == std::string::npos) {
      families += StrCat(families.empty() ? "" : "/", r.versus_family);
    }
  }
  if (ratios.empty()) return "";
  const auto below = std::count_if(ratios.begin(), ratios.end(), [](double v) { return v < 1.0; });
  return StrCat("; vs ", families, " (its time / ours, interleaved): min ",
                Fixed(worst->versus_ratio(), 2), " (", worst->name, " M=", worst->m, "), median ",
                Fixed(MedianOf(ratios), 2), ", ", below, " of ", ratios.size(), " rows below 1.00");
}

}  // namespace

std::vector<std::pair<size_t, size_t>> MeasureOrder(size_t ops,
                                                    const std::vector<bool>& problem_selected) {
  std::vector<std::pair<size_t, size_t>> order;
  for (size_t p = 0; p < problem_selected.size(); ++p) {
    if (!problem_selected[p]) continue;
    for (size_t op = 0; op < ops; ++op) order.emplace_back(op, p);
  }
  return order;
}

std::string FormatRow(const PerfRow& r) {
  char buf[400];
  std::snprintf(
      buf, sizeof(buf),
      "%-8s M=%-5u N=%-6u K=%-5u %-13s ours %9s us  cuBLAS %9s us  x%-5s  %7s TFLOP/s  "
      "%5s TB/s  %5s%% roof  read %9s us  %5s of read  agree %s",
      r.name.c_str(), r.m, r.n, r.k, r.variant.c_str(), Fixed(r.ours_us, 1).c_str(),
      Fixed(r.cublas_us, 1).c_str(), Fixed(r.speedup(), 2).c_str(), Fixed(r.tflops, 1).c_str(),
      Fixed(r.tbps, 2).c_str(), Fixed(100 * r.roof_fraction, 1).c_str(),
      Fixed(r.read_us, 1).c_str(), Fixed(r.read_fraction(), 2).c_str(),
      std::isfinite(r.agreement) ? StrCat(Fixed(r.agreement * 1e3, 2), "e-3").c_str() : "-");
  std::string out = buf;
  if (!r.versus_family.empty()) {
    StrAppend(&out, "  vs ", r.versus_family, " ", r.versus_variant, " ", Fixed(r.versus_us, 1),
              " us x", Fixed(r.versus_ratio(), 2));
  }
  return r.note.empty() ? out : StrCat(out, "  (", r.note, ")");
}

std::string FormatTable(const PerfReport& report) {
  // With --versus, three more columns: the other dispatcher's variant, time and time / ours.
  const bool versus = std::any_of(report.rows.begin(), report.rows.end(),
                                  [](const PerfRow& r) { return !r.versus_family.empty(); });
  std::string out = StrCat(
      "| shape | M | N | K | variant | ours µs | cuBLAS µs | speedup | TFLOP/s | TB/s | % of read "
      "roof (",
      Fixed(report.read_roof_tbps, 2), " TB/s) | read µs | of read |",
      versus ? " versus | versus µs | versus ÷ ours |" : "",
      "\n|---|---|---|---|---|---|---|---|---|---|---|---|---|", versus ? "---|---|---|" : "",
      "\n");
  for (const PerfRow& r : report.rows) {
    StrAppend(&out, "| ", r.name, " | ", r.m, " | ", r.n, " | ", r.k, " | ", r.variant, " | ",
              Fixed(r.ours_us, 1), " | ", Fixed(r.cublas_us, 1), " | ", Fixed(r.speedup(), 2),
              " | ", Fixed(r.tflops, 1), " | ", Fixed(r.tbps, 2), " | ",
              Fixed(100 * r.roof_fraction, 1), " | ", Fixed(r.read_us, 1), " | ",
              Fixed(r.read_fraction(), 2), " |");
    if (versus) {
      StrAppend(&out, " ",
                r.versus_family.empty() ? "-" : StrCat(r.versus_family, " ", r.versus_variant),
                " | ", Fixed(r.versus_us, 1), " | ", Fixed(r.versus_ratio(), 2), " |");
    }
    out += "\n";
  }
  return out;
}

std::string PerfReport::CsvHeader() {
  return "shape,family,m,n,k,variant,ours_us,cublas_us,speedup,tflops,tbps,roof_fraction,"
         "cublas_tflops,cublas_tbps,agreement,read_roof_tbps,launches_per_sample,ours_spread,"
         "cublas_spread,read_us,read_spread,read_fraction,versus_family,versus_variant,versus_us,"
         "versus_spread,versus_ratio,note\n";
}

std::string PerfReport::CsvRow(const PerfRow& r) const {
  return StrCat(
      CsvField(r.name), ",", CsvField(r.family), ",", r.m, ",", r.n, ",", r.k, ",",
      CsvField(r.variant), ",", Fixed(r.ours_us, 2), ",", Fixed(r.cublas_us, 2), ",",
      Fixed(r.speedup(), 4), ",", Fixed(r.tflops, 2), ",", Fixed(r.tbps, 3), ",",
      Fixed(r.roof_fraction, 4), ",", Fixed(r.cublas_tflops, 2), ",", Fixed(r.cublas_tbps, 3), ",",
      std::isfinite(r.agreement) ? StrCat(r.agreement) : "", ",", Fixed(read_roof_tbps, 3), ",",
      batch, ",", Fixed(r.ours_spread, 4), ",", Fixed(r.cublas_spread, 4), ",", Fixed(r.read_us, 2),
      ",", Fixed(r.read_spread, 4), ",", Fixed(r.read_fraction(), 4), ",",
      CsvField(r.versus_family), ",", CsvField(r.versus_variant), ",", Fixed(r.versus_us, 2), ",",
      Fixed(r.versus_spread, 4), ",", Fixed(r.versus_ratio(), 4), ",", CsvField(r.note), "\n");
}

std::string PerfReport::Csv() const {
  std::string out = CsvHeader();
  for (const PerfRow& r : rows) out += CsvRow(r);
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
                        {"ours_spread", number(r.ours_spread)},
                        {"cublas_spread", number(r.cublas_spread)},
                        {"read_us", number(r.read_us)},
                        {"read_spread", number(r.read_spread)},
                        {"read_fraction", number(r.read_fraction())},
                        {"versus_family", r.versus_family},
                        {"versus_variant", r.versus_variant},
                        {"versus_us", number(r.versus_us)},
                        {"versus_spread", number(r.versus_spread)},
                        {"versus_ratio", number(r.versus_ratio())},
                        {"note", r.note}});
  }
  nlohmann::json doc = {{"device", device},
                        {"cublaslt", cublas},
                        {"read_roof_tbps", number(read_roof_tbps)},
                        {"launches_per_sample", batch},
                        {"weight_settled", weight_settled},
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

std::string PerfReport::Summary() const {
  std::vector<std::pair<double, const PerfRow*>> measured;
  for (const PerfRow& r : rows) {
    if (std::isfinite(r.speedup()) && r.speedup() > 0) measured.emplace_back(r.speedup(), &r);
  }
  const size_t unmeasured = rows.size() - measured.size();
  if (measured.empty()) {
    return StrCat("speedup over cuBLAS: no row has both times (", rows.size(), " rows)",
                  ReadClause(rows), VersusClause(rows));
  }
  std::sort(measured.begin(), measured.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t n = measured.size();
  std::vector<double> speedups;
  double log_sum = 0;
  size_t below_95 = 0, below_80 = 0;
  for (const auto& [speedup, row] : measured) {
    speedups.push_back(speedup);
    log_sum += std::log(speedup);
    below_95 += speedup < 0.95 ? 1 : 0;
    below_80 += speedup < 0.80 ? 1 : 0;
  }
  const PerfRow& worst = *measured.front().second;
  return StrCat("speedup over cuBLAS on ", n, " rows: min ", Fixed(measured.front().first, 2),
                "x (", worst.name, " M=", worst.m, "), median ", Fixed(MedianOf(speedups), 2),
                "x, geomean ", Fixed(std::exp(log_sum / static_cast<double>(n)), 2), "x; ",
                below_95, " below 0.95x, ", below_80, " below 0.80x",
                unmeasured > 0 ? StrCat("; ", unmeasured, " rows without both times") : "",
                ReadClause(rows), VersusClause(rows));
}

std::string PerfReport::Heatmap() const {
  // Rows: shape names in order of first appearance; columns: the Ms, ascending.
  std::vector<std::string> shapes;
  std::map<std::string, std::pair<uint32_t, uint32_t>> nk;
  std::set<uint32_t> ms;
  std::map<std::pair<std::string, uint32_t>, const PerfRow*> cells;
  for (const PerfRow& r : rows) {
    if (!nk.count(r.name)) {
      shapes.push_back(r.name);
      nk[r.name] = {r.n, r.k};
    }
    ms.insert(r.m);
    cells[{r.name, r.m}] = &r;
  }
  const int cell_w = 44, cell_h = 16, left = 230, top = 60;
  const int width = left + cell_w * static_cast<int>(ms.size()) + 20;
  const int height = top + cell_h * static_cast<int>(shapes.size()) + 60;
  std::string s =
      StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width, "\" height=\"", height,
             "\" font-family=\"sans-serif\" font-size=\"10\">\n",
             "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
  StrAppend(&s, "<text x=\"10\" y=\"18\" font-size=\"13\">speedup over cuBLASLt on ",
            XmlText(device), ": red below 0.95x, white 1x, green faster</text>\n",
            "<text x=\"10\" y=\"34\">", XmlText(Summary()), "</text>\n");
  auto colour = [](double x) {
    // Red (0.5x and below) -> white (1x) -> green (1.5x and above); light red from 0.95x down.
    const double t = std::clamp((x - 1.0) / 0.5, -1.0, 1.0);
    int r = 255, g = 255, b = 255;
    if (t < 0) {
      g = b = static_cast<int>(255 * (1 + t) * (x < 0.95 ? 0.85 : 1.0));
    } else {
      r = b = static_cast<int>(255 * (1 - t));
    }
    return StrCat("rgb(", r, ",", g, ",", b, ")");
  };
  int col = 0;
  for (uint32_t m : ms) {
    StrAppend(&s, "<text x=\"", left + col * cell_w + cell_w / 2, "\" y=\"", top - 6,
              "\" text-anchor=\"middle\">M=", m, "</text>\n");
    ++col;
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    const int y = top + static_cast<int>(i) * cell_h;
    StrAppend(&s, "<text x=\"", left - 6, "\" y=\"", y + 12, "\" text-anchor=\"end\">",
              XmlText(StrCat(shapes[i], " ", nk[shapes[i]].first, "x", nk[shapes[i]].second)),
              "</text>\n");
    col = 0;
    for (uint32_t m : ms) {
      const int x = left + col++ * cell_w;
      auto it = cells.find({shapes[i], m});
      if (it == cells.end()) continue;
      const double v = it->second->speedup();
      StrAppend(&s, "<rect x=\"", x, "\" y=\"", y, "\" width=\"", cell_w - 1, "\" height=\"",
                cell_h - 1, "\" fill=\"", std::isfinite(v) ? colour(v) : "#ccc", "\"/>\n");
      if (std::isfinite(v)) {
        StrAppend(&s, "<text x=\"", x + cell_w / 2, "\" y=\"", y + 11,
                  "\" text-anchor=\"middle\">", Fixed(v, 2), "</text>\n");
      }
    }
  }
  return s + "</svg>\n";
}

}  // namespace gpuops::tools
