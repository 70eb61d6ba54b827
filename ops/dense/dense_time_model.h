// The dispatcher's time model of the sm_90a wgmma variants and gemv_m16: a call's predicted time
// from its shape, fitted to every such variant forced on grids of shapes on the H200.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "ops/dense/dense_variants.h"

namespace gpuops::ops::dense {

// One variant's fit, in microseconds (bench/model/fit_dense_time_model.py prints these rows):
//   time = launch + wave * waves + k_wave * (K / splits) * filled_waves
//        + weight_mb * (N K + M K) BF16 MB + partial_mb * splits M N FP32 MB (split variants)
// where the grid's units (tiles x splits) run in waves of one per SM, and filled_waves counts
// the last, partial wave as (1 - fill_share) + fill_share * its share of the SMs: a tile's
// k-loop runs faster on a wave that leaves SMs idle, more so for the small, memory-bound tiles.
struct VariantTimeModel {
  Variant variant;
  double fill_share;
  double launch_us;
  double wave_us;
  double k_wave_us;
  double weight_mb_us;
  double partial_mb_us;
  // The shapes the fit saw: M >= min_m, and a last m-block holding min_last_rows of M or more
  // (or all of a tile's rows). Off them the row predicts nothing, so the dispatcher does not
  // extrapolate a tile to shapes it was never timed on.
  uint32_t min_m = 0;
  uint32_t min_last_rows = 0;
  // At most this many waves of units (0: any). The in-between widths (160, 176) are for the
  // last wave's fill, which past 16 waves is worth under 1/16 of the time, below the row's
  // error: at 84 waves (4096 x 55296 x 5120) 160 ping-pong ran 4 % slower than 128 x 256 where
  // this row predicted it 3 % faster (session 28).
  uint32_t max_waves = 0;
  // The share by which this row's prediction must beat every other candidate's before the
  // dispatcher picks it (PickMargin; 0 for the rows fitted on the H200 itself).
  double pick_margin = 0.0;
  // At most this M (0: any), where a row's fit stops at an M past which the tile was measured
  // slower than its prediction.
  uint32_t max_m = 0;
};

// The variants the model covers: the thirteen wgmma tiles, the four wgmma split variants,
// gemv_m16, the four _tail variants and the six _pingpong variants (on their tile's row).
inline constexpr size_t kModeledVariants = 28;

// The predicted time of `v` for M x N x K in `splits` K splits (1: unsplit) on `sms` SMs, or
// nullopt when the model has no row for `v` (it covers the wgmma tiles and split variants and
// gemv_m16) or the shape is off the row's fit (min_m, max_m, min_last_rows, max_waves).
std::optional<double> PredictMicros(Variant v, uint32_t m, uint32_t n, uint32_t k, uint32_t splits,
                                    uint32_t sms);

// Whether the model has a row for `v`.
bool Modeled(Variant v);

// The share by which `v`'s prediction must beat every other variant's before the dispatcher
// picks it: its row's pick_margin (a ping-pong variant takes its tile's, a tail variant the
// larger of its tile's and its own): kPickMargin for the 160-, 176- and 112-wide tiles and the
// 192 x 128 split and tail variants, 0 for the others. The 160 / 176 rows fit less tightly (rms
// 6.5 % against 4-6 %), and on the session-28 run, picking them wherever predicted fastest changed
// 114 picks, 9 of them slower by more than 3 % (many waves, predicted gains of 1-2 %); with the
// margin 33 changed, 1.066x faster (geomean), none slower by 3 %. The 192 x 128 rows (session 34) and
// the 112-wide row (session 35) were fitted on an H100, not the H200.
inline constexpr double kPickMargin = 0.03;
double PickMargin(Variant v);

}  // namespace gpuops::ops::dense
