// `gpuops perf` output: CSV fields that hold commas, quotes or newlines are quoted (RFC 4180),
// JSON is valid with unmeasured figures as null, the SVG escapes its text, and every form carries
// the same-size read and our fraction of it.
#include "perf_report.h"

#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace gpuops::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

PerfReport Report() {
  PerfReport report;
  report.device = "H200 <sim> & co";
  report.cublas = "libcublasLt.so.13";
  report.read_roof_tbps = 4.5;
  report.rows.push_back({.name = "qkv",
                         .family = "dense",
                         .m = 16,
                         .n = 6144,
                         .k = 4096,
                         .variant = "gemv_m16",
                         .ours_us = 21.0,
                         .cublas_us = 26.0,
                         .read_us = 14.0,
                         .read_spread = 0.01,
                         .note = "not run: k=4100, \"odd\"\nsecond line"});
  report.rows.push_back({.name = "o", .family = "dense", .m = 1, .n = 4096, .k = 4096,
                         .variant = "tc"});
  return report;
}

TEST(PerfReportTest, CsvQuotesFieldsThatHoldCommasQuotesOrNewlines) {
  const std::string csv = Report().Csv();
  EXPECT_THAT(
      csv,
      HasSubstr(
          ",1,-,-,14.00,0.0100,0.6667,,,-,-,-,\"not run: k=4100, \"\"odd\"\"\nsecond line\"\n"));
  EXPECT_THAT(csv, HasSubstr("qkv,dense,16,6144,4096,gemv_m16,21.00,26.00,1.2381,"));
  EXPECT_THAT(csv, HasSubstr(",cublas_spread,read_us,read_spread,read_fraction,versus_family,"
                             "versus_variant,versus_us,versus_spread,versus_ratio,note\n"));
  EXPECT_THAT(csv, HasSubstr(",1,-,-,-,-,-,,,-,-,-,\n"));  // o: nothing measured, no note
  // Every record has as many fields as the header, counting only commas outside quotes.
  size_t records = 0;
  size_t fields = 1;
  size_t header_fields = 0;
  bool quoted = false;
  for (char c : csv) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == ',') ++fields;
    if (c == '\n') {
      if (records++ == 0) header_fields = fields;
      EXPECT_EQ(fields, header_fields) << "record " << records;
      fields = 1;
    }
  }
  EXPECT_EQ(records, 3u);
}

// `gpuops perf --csv` writes the header, then each row as it is measured: the file a run
// leaves, whole or cut short, must read as Csv() of the rows measured so far.
TEST(PerfReportTest, CsvIsTheHeaderThenEachRowAsWrittenOneAtATime) {
  const PerfReport report = Report();
  std::string streamed = PerfReport::CsvHeader();
  for (const PerfRow& row : report.rows) {
    const std::string line = report.CsvRow(row);
    EXPECT_EQ(line.back(), '\n') << "a row is a whole record";
    streamed += line;
  }
  EXPECT_EQ(streamed, report.Csv());
  PerfReport first_only = report;
  first_only.rows.resize(1);
  EXPECT_EQ(PerfReport::CsvHeader() + report.CsvRow(report.rows[0]), first_only.Csv());
}

TEST(PerfReportTest, JsonIsValidAndUnmeasuredFiguresAreNull) {
  const nlohmann::json doc = nlohmann::json::parse(Report().Json(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  ASSERT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["rows"][0]["note"], "not run: k=4100, \"odd\"\nsecond line");
  EXPECT_DOUBLE_EQ(doc["rows"][0]["ours_us"].get<double>(), 21.0);
  EXPECT_TRUE(doc["rows"][1]["ours_us"].is_null());
  EXPECT_DOUBLE_EQ(doc["rows"][0]["read_us"].get<double>(), 14.0);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["read_spread"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["read_fraction"].get<double>(), 14.0 / 21.0);
  EXPECT_TRUE(doc["rows"][1]["read_us"].is_null());
  EXPECT_TRUE(doc["rows"][1]["read_fraction"].is_null());
  EXPECT_EQ(doc["device"], "H200 <sim> & co");
}

TEST(PerfReportTest, SvgEscapesItsText) {
  const std::string svg = Report().Svg();
  EXPECT_THAT(svg, HasSubstr("H200 &lt;sim&gt; &amp; co"));
  EXPECT_THAT(svg, Not(HasSubstr("<sim>")));
}

TEST(PerfReportTest, TableAndRowGiveTheSameSizeReadAndOurFractionOfIt) {
  const PerfReport report = Report();
  const std::string table = FormatTable(report);
  EXPECT_THAT(table, HasSubstr("| % of read roof (4.50 TB/s) | read µs | of read |\n"
                               "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"));
  EXPECT_THAT(table, HasSubstr("| qkv | 16 | 6144 | 4096 | gemv_m16 | 21.0 | 26.0 | 1.24 | - | - | "
                               "- | 14.0 | 0.67 |\n"));
  EXPECT_THAT(table, HasSubstr("| o | 1 | 4096 | 4096 | tc | - | - | - | - | - | - | - | - |\n"));
  EXPECT_THAT(FormatRow(report.rows[0]), HasSubstr("read      14.0 us   0.67 of read"));
  EXPECT_THAT(FormatRow(report.rows[1]), HasSubstr("read         - us      - of read"));
}

// --versus: another family's dispatcher timed on the same shape, interleaved; every form gives
// its variant, time and its time over ours, and the summary the worst and median ratio.
TEST(PerfReportTest, VersusGivesTheOtherDispatchersTimeAndItsRatioToOurs) {
  PerfReport report;
  report.rows.push_back({.name = "qkv",
                         .family = "fp8",
                         .m = 48,
                         .n = 6144,
                         .k = 4096,
                         .variant = "wg_m64_n64_split2",
                         .ours_us = 20.0,
                         .cublas_us = 25.0,
                         .versus_family = "dense",
                         .versus_variant = "wgmma_64x128",
                         .versus_us = 22.0,
                         .versus_spread = 0.02});
  report.rows.push_back({.name = "o",
                         .family = "fp8",
                         .m = 48,
                         .variant = "wg_m64_n64_split2",
                         .ours_us = 25.0,
                         .versus_family = "dense",
                         .versus_variant = "wgmma_64x128_split",
                         .versus_us = 22.5});
  report.rows.push_back({.name = "down", .family = "fp8", .m = 48, .ours_us = 30.0});
  EXPECT_THAT(report.Csv(), HasSubstr(",dense,wgmma_64x128,22.00,0.0200,1.1000,\n"));
  EXPECT_THAT(report.Csv(), HasSubstr(",,,-,-,-,\n"));  // down: not timed against another
  const nlohmann::json doc = nlohmann::json::parse(report.Json(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["rows"][0]["versus_family"], "dense");
  EXPECT_DOUBLE_EQ(doc["rows"][1]["versus_ratio"].get<double>(), 0.9);
  EXPECT_TRUE(doc["rows"][2]["versus_us"].is_null());
  EXPECT_THAT(FormatRow(report.rows[0]), HasSubstr("vs dense wgmma_64x128 22.0 us x1.10"));
  EXPECT_THAT(FormatRow(report.rows[2]), Not(HasSubstr(" vs ")));
  const std::string table = FormatTable(report);
  EXPECT_THAT(table,
              HasSubstr("| of read | versus | versus µs | versus ÷ ours |\n"
                        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"));
  EXPECT_THAT(table, HasSubstr("| dense wgmma_64x128_split | 22.5 | 0.90 |\n"));
  EXPECT_THAT(table, HasSubstr("| - | - | - | - | - |\n"));  // down
  EXPECT_THAT(report.Summary(),
              HasSubstr("; vs dense (its time / ours, interleaved): min 0.90 (o M=48), median "
                        "1.00, 1 of 2 rows below 1.00"));
  EXPECT_THAT(FormatTable(Report()), Not(HasSubstr("versus")));
}

TEST(PerfReportTest, SummaryGivesMinMedianGeomeanAndTheCountsBelowTheGoals) {
  PerfReport report;
  for (auto [m, ours, theirs] : {std::tuple{1u, 10.0, 5.0},    // 0.50x
                                 {2u, 10.0, 9.0},              // 0.90x
                                 {4u, 10.0, 10.0},             // 1.00x
                                 {8u, 10.0, 20.0}}) {          // 2.00x
    report.rows.push_back({.name = "qkv", .m = m, .ours_us = ours, .cublas_us = theirs});
  }
  report.rows.push_back({.name = "o", .m = 1});  // not measured
  const std::string summary = report.Summary();
  EXPECT_THAT(summary, HasSubstr("on 4 rows: min 0.50x (qkv M=1), median 0.95x, geomean 0.97x; "
                                 "2 below 0.95x, 1 below 0.80x; 1 rows without both times"));
  EXPECT_THAT(summary, Not(HasSubstr("same-size read")));  // no row has one
}

TEST(PerfReportTest, SummaryGivesTheMedianOfTheSameSizeReadOverTheRowsThatHaveIt) {
  PerfReport report;
  for (auto [m, ours, read] : {std::tuple{1u, 10.0, 5.0},  // 0.50
                               {2u, 10.0, 9.0},            // 0.90
                               {4u, 10.0, 12.0}}) {        // 1.20
    report.rows.push_back(
        {.name = "qkv", .m = m, .ours_us = ours, .cublas_us = 10.0, .read_us = read});
  }
  report.rows.push_back({.name = "o", .m = 1, .ours_us = 10.0, .cublas_us = 10.0});  // no read
  EXPECT_THAT(report.Summary(), HasSubstr("; median of same-size read 0.90 on 3 rows"));
  // Without cuBLAS's times the read's median is still given.
  for (PerfRow& r : report.rows) r.cublas_us = NAN;
  EXPECT_THAT(report.Summary(), HasSubstr("no row has both times (4 rows); median of same-size "
                                          "read 0.90 on 3 rows"));
}

TEST(PerfReportTest, HeatmapHasACellPerShapeAndM) {
  PerfReport report = Report();
  report.rows.push_back({.name = "qkv", .m = 1, .n = 6144, .k = 4096, .ours_us = 10,
                         .cublas_us = 12});
  const std::string svg = report.Heatmap();
  EXPECT_THAT(svg, HasSubstr(">M=1<"));
  EXPECT_THAT(svg, HasSubstr(">M=16<"));
  EXPECT_THAT(svg, HasSubstr(">qkv 6144x4096<"));
  EXPECT_THAT(svg, HasSubstr(">1.24<"));  // qkv M=16: 26 / 21
  EXPECT_THAT(svg, HasSubstr(">1.20<"));  // qkv M=1
  EXPECT_THAT(svg, HasSubstr("H200 &lt;sim&gt; &amp; co"));
}

// Rows are measured problem by problem, each problem's ops in their given order (the dispatcher
// first), and problems --only drops are skipped.
TEST(PerfReportTest, MeasureOrderIsProblemMajorInTheOpsOrder) {
  using Order = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(MeasureOrder(3, {true, false, true}), (Order{{0, 0}, {1, 0}, {2, 0}, {0, 2}, {1, 2},
                                                         {2, 2}}));
  EXPECT_EQ(MeasureOrder(1, {true, true}), (Order{{0, 0}, {0, 1}}));
  EXPECT_TRUE(MeasureOrder(0, {true}).empty());
  EXPECT_TRUE(MeasureOrder(2, {false, false}).empty());
}

}  // namespace
}  // namespace gpuops::tools
