#include "ops/dense/dense_time_model.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "ops/family_kit.h"

namespace gpuops::ops::dense {
namespace {

// Fitted by bench/model/fit_dense_time_model.py to bench/results/2026-12-03-s18-grid*.csv: each
// variant forced on 50 (N, K) of open models and vocab heads (0.9k-152k x 0.9k-28k) at 26 Ms
// from 24 to 4096 (the split variants at M <= 512, with SplitsFor's counts), 10 samples a row,
// 132 SMs. Per row: shapes fitted, rms relative error. Picking the least predicted time, with
// each (N, K) left out of the fit in turn, ran 1.0072x the fastest variant's time (geomean; 34
// of 668 shapes above 1.05x). The first grid's fit, run on the second grid it had not seen:
// 1.0083x (14 of 192 above 1.05x), where the session-17 rule of waves x tile cost ran 1.034x
// (42 above 1.05x). At M = 9..16 (45 shapes forced, gemv_m16 among the candidates): 1.010x,
// where the session-17 rule (gemv_m16 unless 64 x 128 tiles filled 0.6 of the SMs) ran 1.111x.
constexpr VariantTimeModel kModels[] = {
    // variant, fill_share, launch, wave, k_wave, weight_mb, partial_mb (microseconds)
    {Variant::kWgmma128x256, 0.1, 7.079, 2.82, 0.009402, 0.04764, 0},             // 668, 0.040
    {Variant::kWgmma192x192, 0.1, 6.843, 2.969, 0.0108, 0.02297, 0},              // 668, 0.029
    {Variant::kWgmma128x192, 0.2, 8.091, 1.611, 0.007383, 0.05155, 0},            // 668, 0.046
    {Variant::kWgmma192x128, 0.2, 7.429, 1.83, 0.00771, 0.03029, 0},              // 668, 0.060
    {Variant::kWgmma128x128, 0.2, 7.441, 1.547, 0.00492, 0.0617, 0},              // 668, 0.061
    {Variant::kWgmma192x64, 0.4, 6.819, 1.31, 0.005804, 0, 0},                    // 668, 0.137
    {Variant::kWgmma64x128, 0.3, 7.914, 0.9867, 0.002778, 0.09581, 0},            // 668, 0.070
    {Variant::kWgmma64x64, 0.2, 8.103, 0.8066, 0.002353, 0.07028, 0},             // 668, 0.059
    // The 144- and 96-wide tiles (session 23), forced on the 484 shapes of the session-18 grids
    // (M >= 128) plus 47 sweep rows (bench/results/2026-12-04-s23-grid-new-tiles.csv). Left
    // out of the fit, and so off the model: M whose last m-block holds 64 rows or fewer, whose
    // times then included the TMA unit's slow zero-fill of A rows past M (M = 160 ran 1.3-1.5x
    // M = 224's time on the same tiles), which TileFirstRow has since removed; they await a
    // refit (bench/NOTES.md session 23). Each time was
    // scaled by the model's prediction for the dispatcher's pick on that shape over the pick's
    // time in the same run (geomean 1.035), so that these rows rank against the rows above as
    // the same run ranked the kernels.
    {Variant::kWgmma128x144, 0.1, 7.595, 1.464, 0.005582, 0.04465, 0, 128, 65},  // 415, 0.040
    {Variant::kWgmma128x96, 0.2, 7.185, 0.7364, 0.004169, 0.05342, 0, 128, 65},   // 415, 0.056
    // The 160- and 176-wide tiles (session 28), forced with the dispatcher on 513 shapes (57
    // (N, K) of the session-23 grid x M = 128-4096, whole 128-row m-blocks, plus the sweep's
    // losers; bench/results/2026-12-05-s28-h100-grid-n160-n176.csv) on an H100, every time
    // scaled by 0.9796: the geomean over those shapes of this model's prediction for the
    // dispatcher's pick over the pick's time in the same run (bench/model/
    // calibrate_forced_run.py). Gated as the 144- and 96-wide rows and to 16 waves, and picked
    // only where they beat the best other prediction by kPickMargin.
    {Variant::kWgmma128x160, 0.2, 6.871, 1.763, 0.00582, 0.09551, 0, 128, 65, 16,
     kPickMargin},  // 513, 0.065
    {Variant::kWgmma128x176, 0.2, 6.53, 2.074, 0.006452, 0.08968, 0, 128, 65, 16,
     kPickMargin},  // 513, 0.064
    // The 112-wide tiles (session 33), on one wave only: where their tiles fill it closer than
    // 128's (512 x 3584: 128 tiles of 112 columns against 112 of 128 on 132 SMs). Forced with
    // the dispatcher on an H100 (bench/results/2026-12-07-s35-h100-grid-128x112.csv, the
    // session-23 grid's 36 (N, K) x M = 256-2048; -s34-h100-one-wave-128x112.csv, 19 one-wave
    // shapes), each run's times scaled by the geomean over its shapes of this model's prediction
    // for the pick over the pick's time (1.012, 1.016), fitted to the 62 one-wave rows at M =
    // 128-512 (bench/model/fit_one_wave_row.py). Past one wave it ran up to 20 % slower than the
    // picks; so did it at M = 616-1152 on several one-wave shapes (-s35-h100-ab-112.csv: 624 x
    // 2816 x 19712 141 us against 128 x 128's 110), so the row stops at 4 m-blocks. With the
    // margin, each (N, K) left out of the fit in turn: 9 picks changed, 1.061x faster
    // (geomean), none slower by 3 %.
    {Variant::kWgmma128x112, 0.1, 8.862, 0, 0.003313, 0.1513, 0, 128, 65, 1, kPickMargin,
     512},  // 62, 0.045
    {Variant::kWgmma64x128SplitK, 0.3, 6.877, 4.88, 0.00225, 0.1518, 0.2398},     // 418, 0.060
    {Variant::kWgmma128x128SplitK, 0.4, 4.85, 6.383, 0.005395, 0.07506, 0.4501},  // 418, 0.063
    {Variant::kWgmma128x256SplitK, 0.1, 0, 12.35, 0.008805, 0.09466, 0.4315},     // 418, 0.064
    // 192 x 128 tiles over K splits (session 34): forced with 192x128 and the dispatcher on 14
    // (N, K) x M = 160, 192, 320 on an H100 (bench/results/2026-12-06-s34-h100-grid-192x128-
    // split-tail.csv), each shape's times scaled by this model's 192x128 prediction over its
    // measured 192x128 time (bench/model/fit_tile_variants.py), fitted at M = 160-320 where
    // SplitsFor splits (rms 1.1 %). Not fitted on the H200: picked only by kPickMargin.
    {Variant::kWgmma192x128SplitK, 0.1, 12.57, 0, 0.005344, 0.1984, 0.2705, 0, 0, 0,
     kPickMargin},  // 13, 0.011
    // gemv_m16's waves are its blocks of 16 weight rows over the SMs. Fitted (--gemv-m16) to
    // its rows at M = 9, 12, 16 on 15 (N, K) and at M = 12, 16 in the sweep
    // (-s18-m9-16-forced.csv, -s18-sweep-{2,3}-new.csv): a read of the weights plus a cost per
    // wave of rows.
    {Variant::kGemvM16, 0.0, 6.691, 0.8991, 0, 0.2763, 0},  // 203, 0.065
};

// The _tail variants run their tile's kernel: its row, with the waves counted as TailOf deals
// the units (whole waves of tiles over all of K, then rounds of tail splits over K / splits),
// plus a fixed cost and one per MB of the FP32 partials the splits write and the reduce reads.
// Those two fitted to the _tail variants forced on 32 shapes of 0.3-4.3 wave (bench/results/
// 2026-12-04-s21-tail-forced.csv: M = 256-3072, K = 896-27648; mean relative error 1.5 / 2.9 /
// 2.7 %, at most 6 / 10 / 9 %).
struct TailModel {
  Variant variant;
  Variant tile;
  double fixed_us;
  double partial_mb_us;
  // As VariantTimeModel::pick_margin; the larger of this and the tile's row's applies.
  double pick_margin = 0.0;
};
constexpr TailModel kTailModels[] = {
    {Variant::kWgmma128x256Tail, Variant::kWgmma128x256, 10.54, 0.385},
    {Variant::kWgmma128x192Tail, Variant::kWgmma128x192, 3.96, 0.351},
    {Variant::kWgmma128x128Tail, Variant::kWgmma128x128, 3.85, 0.341},
    // Fitted the same way to 192x128_tail on the session-34 H100 grid (14 split shapes, 2-6
    // splits, 0.2-3.4 waves; rms 1.2 %, at most 2.6 %), each time scaled by 192x128's row over
    // the measured 192x128 time on its shape. Not fitted on the H200: picked only by kPickMargin.
    {Variant::kWgmma192x128Tail, Variant::kWgmma192x128, 8.817, 0.1131, kPickMargin},
};

// The ping-pong variants run their tile's kernel with each consumer warpgroup on whole tiles: one
// warpgroup's epilogue hides behind the other's mainloop from the second wave on, and on a single
// wave each tile has one warpgroup where the cooperative kernel has two. Their time: the tile's
// prediction less hidden_us per wave after the first, or divided by 1 - single_wave_loss on one
// wave. Fitted (bench/model/fit_dense_time_model.py --pingpong) to both kernels and their tiles
// forced on 484 shapes of 0.1-73 waves (bench/results/2026-12-04-s22-pingpong-grid.csv: M =
// 128-4096, K = 896-27648): on one wave 0.991x / 0.987x the tile's speed; past it 1.01-1.06x,
// rms 1.6 / 1.5 % about the fit.
struct PingPongModel {
  Variant variant;
  Variant tile;
  double single_wave_loss;
  double hidden_us;
};
constexpr PingPongModel kPingPongModels[] = {
    {Variant::kWgmma128x128PingPong, Variant::kWgmma128x128, 0.009, 0.365},
    {Variant::kWgmma128x192PingPong, Variant::kWgmma128x192, 0.013, 0.907},
    // Fitted the same way to the session-23 run above (rms 1.8 / 3.5 %).
    {Variant::kWgmma128x144PingPong, Variant::kWgmma128x144, 0.026, 0.735},
    {Variant::kWgmma128x96PingPong, Variant::kWgmma128x96, 0.044, 0.347},
    // Fitted the same way to the session-28 run above (rms 2.4 / 3.2 %).
    {Variant::kWgmma128x160PingPong, Variant::kWgmma128x160, 0.007, 0.896},
    {Variant::kWgmma128x176PingPong, Variant::kWgmma128x176, 0.011, 0.995},
};

static_assert(std::size(kModels) + std::size(kTailModels) + std::size(kPingPongModels) ==
              kModeledVariants);

// Each variant's row in kModels, -1 for none: the dispatcher looks rows up on every call.
constexpr auto kRowOf = [] {
  std::array<int, kVariants.size()> rows{};
  rows.fill(-1);
  for (size_t i = 0; i < std::size(kModels); ++i) {
    rows[static_cast<size_t>(kModels[i].variant)] = static_cast<int>(i);
  }
  return rows;
}();

const VariantTimeModel* Find(Variant v) {
  const size_t index = static_cast<size_t>(v);
  if (index >= kRowOf.size() || kRowOf[index] < 0) return nullptr;
  return &kModels[kRowOf[index]];
}

// The row of `v` in one of the tables whose rows name their variant, or null.
template <typename Row, size_t kRows>
const Row* FindRow(const Row (&table)[kRows], Variant v) {
  for (const Row& row : table) {
    if (row.variant == v) return &row;
  }
  return nullptr;
}

// The filled waves of `units` over `sms` (PredictMicros's `filled`).
double Filled(const VariantTimeModel& model, uint64_t units, uint32_t sms) {
  const uint64_t full = units / sms;
  const uint64_t last = units % sms;
  return static_cast<double>(full) +
         (last != 0 ? 1.0 - model.fill_share + model.fill_share * static_cast<double>(last) / sms
                    : 0.0);
}


std::optional<double> PredictPingPong(const PingPongModel& pingpong, uint32_t m, uint32_t n,
                                      uint32_t k, uint32_t sms) {
  const VariantSpec* spec = kVariants.Find(pingpong.variant);
  const std::optional<double> tile_us = PredictMicros(pingpong.tile, m, n, k, 1, sms);
  if (spec == nullptr || !tile_us.has_value()) return std::nullopt;
  const uint64_t tiles = TileCount(*spec, m, n);
  const uint64_t waves = tiles / sms + (tiles % sms != 0);
  if (waves <= 1) return *tile_us / (1.0 - pingpong.single_wave_loss);
  return *tile_us - pingpong.hidden_us * static_cast<double>(waves - 1);
}

std::optional<double> PredictTail(const TailModel& tail_model, uint32_t m, uint32_t n, uint32_t k,
                                  uint32_t splits, uint32_t sms) {
  const VariantTimeModel* model = Find(tail_model.tile);
  const VariantSpec* spec = kVariants.Find(tail_model.variant);
  if (model == nullptr || spec == nullptr) return std::nullopt;
  const auto tiles =
      static_cast<uint32_t>(std::min<uint64_t>(TileCount(*spec, m, n), UINT32_MAX));
  const uint32_t grid = std::max(TailGrid(tiles, splits, sms), 1u);
  const TailTiles tail = TailOf(tiles, grid, splits);
  // Nothing split (one split, or whole waves): the tile's kernel, every tile over all of K.
  if (tail.tail_tiles == 0) return PredictMicros(tail_model.tile, m, n, k, 1, sms);
  const uint64_t dp_waves = tail.dp_tiles / grid;
  const uint64_t tail_units = uint64_t{tail.tail_tiles} * splits;
  const double waves = static_cast<double>(dp_waves + (tail_units + grid - 1) / grid);
  const double md = m, nd = n, kd = k;
  const double weight_mb = (nd * kd + md * kd) * 2 / 1e6;
  const double partial_mb = static_cast<double>(tail_units) * spec->tile_m * spec->tile_n * 4 / 1e6;
  const double micros = model->launch_us + model->wave_us * waves +
                  model->k_wave_us * (kd * static_cast<double>(dp_waves) +
                                      kd / splits * Filled(*model, tail_units, sms)) +
                  model->weight_mb_us * weight_mb;
  return micros + tail_model.fixed_us + tail_model.partial_mb_us * partial_mb;
}

}  // namespace

double PickMargin(Variant v) {
  if (const PingPongModel* pingpong = FindRow(kPingPongModels, v)) v = pingpong->tile;
  double tail_margin = 0.0;
  if (const TailModel* tail = FindRow(kTailModels, v)) {
    tail_margin = tail->pick_margin;
    v = tail->tile;
  }
  const VariantTimeModel* model = Find(v);
  return std::max(tail_margin, model != nullptr ? model->pick_margin : 0.0);
}

bool Modeled(Variant v) {
  return Find(v) != nullptr || FindRow(kTailModels, v) != nullptr ||
         FindRow(kPingPongModels, v) != nullptr;
}

std::optional<double> PredictMicros(Variant v, uint32_t m, uint32_t n, uint32_t k, uint32_t splits,
                                    uint32_t sms) {
  splits = std::max(splits, 1u);
  sms = std::max(sms, 1u);
  if (const TailModel* tail = FindRow(kTailModels, v)) {
    return PredictTail(*tail, m, n, k, splits, sms);
  }
  if (const PingPongModel* pingpong = FindRow(kPingPongModels, v)) {
    if (splits != 1) return std::nullopt;  // whole tiles only
    return PredictPingPong(*pingpong, m, n, k, sms);
  }
  const VariantTimeModel* model = Find(v);
  const VariantSpec* spec = kVariants.Find(v);
  if (model == nullptr || spec == nullptr || m < model->min_m) return std::nullopt;
  if (model->max_m != 0 && m > model->max_m) return std::nullopt;
  if (const uint32_t last_rows = m % spec->tile_m; last_rows != 0 && last_rows < model->min_last_rows) {
    return std::nullopt;
  }
  const uint64_t units = TileCount(*spec, m, n) * splits;
  const uint64_t whole_waves = units / sms + (units % sms != 0);
  if (model->max_waves != 0 && whole_waves > model->max_waves) return std::nullopt;
  const double waves = static_cast<double>(whole_waves);
  const double filled = Filled(*model, units, sms);
  const double md = m, nd = n, kd = k;
  const double weight_mb = (nd * kd + md * kd) * 2 / 1e6;
  const double partial_mb = spec->second_kernel.empty() ? 0.0 : splits * md * nd * 4 / 1e6;
  return model->launch_us + model->wave_us * waves + model->k_wave_us * (kd / splits) * filled +
         model->weight_mb_us * weight_mb + model->partial_mb_us * partial_mb;
}

}  // namespace gpuops::ops::dense
