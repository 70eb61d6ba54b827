// Host emulations of the dense kernels for the mock. Each walks the recorded grid block by block
// and computes exactly the outputs that block of the device kernel owns (cuda/dense_tiles.h), so
// a launcher that swaps grid axes, passes a wrong ldb or under-sizes a buffer produces unwritten
// outputs or an out-of-bounds error naming the kernel and argument. Kernels whose warps assume
// their block shape refuse any other block, as the device code would compute garbage.
//
// Strict-order kernels are emulated in their exact order (bit-exact); tensor-core kernels in
// k order, which satisfies their bound, and identically for the plain and the fused epilogue.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/dense/dense_args.h"
#include "ops/dense/dense_gemm.h"
#include "ops/dense/dense_row_class_maps.h"

namespace gpuops::ops::dense {
namespace {

struct GemmView {
  absl::Span<uint16_t> a;
  absl::Span<uint16_t> b;
  absl::Span<uint16_t> c;
  uint32_t m = 0, n = 0, k = 0, ldb = 0;
};

// A, B and C of an (a, b, c, m, n, k[, ldb]) argument list, sized as the kernel reads and writes
// them: A is M x K, B is N rows ldb apart, C is M x N.
template <typename Args>
absl::StatusOr<GemmView> ViewGemm(const HostLaunch& l, HostMemory& mem, const Args& args,
                                  uint32_t ldb, bool vector_loads) {
  GemmView g{.m = args.m, .n = args.n, .k = args.k, .ldb = ldb};
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(g.m, g.n), g.k)));
  if (ldb < args.k) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": ldb=", ldb, " < k=", args.k, " (B rows overlap)"));
  }
  if (vector_loads) {
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.a, ArgLabel(&Args::a), 16));
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.b, ArgLabel(&Args::b), 16));
    if (ldb % 8 != 0) {
      return absl::InvalidArgumentError(
          StrCat(l.kernel(), ": B row stride ", ldb, " is not a multiple of 8 (misaligned rows)"));
    }
  }
  GPUOPS_ASSIGN_OR_RETURN(g.a, mem.View<uint16_t>(args.a, uint64_t{g.m} * g.k, ArgLabel(&Args::a)));
  GPUOPS_ASSIGN_OR_RETURN(
      g.b,
      mem.View<uint16_t>(args.b, g.n == 0 ? 0 : uint64_t{g.n - 1} * ldb + g.k, ArgLabel(&Args::b)));
  GPUOPS_ASSIGN_OR_RETURN(g.c, mem.View<uint16_t>(args.c, uint64_t{g.m} * g.n, ArgLabel(&Args::c)));
  return g;
}

// Sums for rows [row0, row0 + rows) x columns [col0, col0 + cols) over k in [k0, k1), each in k
// order: acc = acc + a * b (or fma(a, b, acc) with `fused`). acc is rows x cols, row-major.
void TileSums(const GemmView& g, uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols,
              uint32_t k0, uint32_t k1, bool fused, std::vector<float>& acc) {
  acc.assign(static_cast<size_t>(rows) * cols, 0.0f);
  if (rows == 0 || cols == 0 || k1 <= k0) return;
  std::vector<float> bt(static_cast<size_t>(k1 - k0) * cols);  // [k][column]
  for (uint32_t j = 0; j < cols; ++j) {
    const uint16_t* brow = &g.b[size_t{col0 + j} * g.ldb];
    for (uint32_t i = k0; i < k1; ++i) bt[size_t{i - k0} * cols + j] = Bf16ToFloat(brow[i]);
  }
  for (uint32_t r = 0; r < rows; ++r) {
    float* out = &acc[size_t{r} * cols];
    const uint16_t* arow = &g.a[size_t{row0 + r} * g.k];
    for (uint32_t i = k0; i < k1; ++i) {
      const float av = Bf16ToFloat(arow[i]);
      const float* bk = &bt[size_t{i - k0} * cols];
      if (fused) {
        for (uint32_t j = 0; j < cols; ++j) out[j] = std::fma(av, bk[j], out[j]);
      } else {
        for (uint32_t j = 0; j < cols; ++j) {
          const float product = av * bk[j];
          out[j] = out[j] + product;
        }
      }
    }
  }
}

// dense_gemm_bf16: thread (x, y) of block (bx, by) owns row by*16 + y, column bx*16 + x.
absl::Status Scalar(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(MnkArgs args, l.Unpack<MnkArgs>());
  GPUOPS_ASSIGN_OR_RETURN(GemmView g, ViewGemm(l, mem, args, args.k, /*vector_loads=*/false));
  std::vector<float> acc;
  ForEachNFastTile(l, g.m, g.n, ScalarTile::kM, ScalarTile::kN, l.block().y, l.block().x,
                   [&](uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols) {
                     TileSums(g, row0, rows, col0, cols, 0, g.k, false, acc);
                     for (uint32_t r = 0; r < rows; ++r) {
                       for (uint32_t j = 0; j < cols; ++j) {
                         g.c[size_t{row0 + r} * g.n + col0 + j] =
                             FloatToBf16(acc[size_t{r} * cols + j]);
                       }
                     }
                   });
  return absl::OkStatus();
}

// Whole-tile kernels (router, tc, tc_ldb, tc_scaled_acc, pipelined, pipelined_ldb): each block
// owns one tile_m x tile_n tile. `scale` is the fused epilogue's (nullopt: plain store).
absl::Status WholeTile(const VariantSpec& spec, const HostLaunch& l, const GemmView& g,
                       std::optional<float> scale) {
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, spec.block));
  std::vector<float> acc;
  ForEachNFastTile(
      l, g.m, g.n, spec.tile_m, spec.tile_n, spec.tile_m, spec.tile_n,
      [&](uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols) {
        TileSums(g, row0, rows, col0, cols, 0, g.k, false, acc);
        for (uint32_t r = 0; r < rows; ++r) {
          for (uint32_t j = 0; j < cols; ++j) {
            uint16_t& out = g.c[size_t{row0 + r} * g.n + col0 + j];
            const uint16_t product = FloatToBf16(acc[size_t{r} * cols + j]);
            out = scale ? FloatToBf16(std::fma(*scale, Bf16ToFloat(product), Bf16ToFloat(out)))
                        : product;
          }
        }
      });
  return absl::OkStatus();
}

absl::Status WholeTileMnk(Variant v, const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(MnkArgs args, l.Unpack<MnkArgs>());
  GPUOPS_ASSIGN_OR_RETURN(GemmView g, ViewGemm(l, mem, args, args.k, /*vector_loads=*/true));
  return WholeTile(kVariants[v], l, g, std::nullopt);
}

absl::Status WholeTileLdb(Variant v, const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(LdbArgs args, l.Unpack<LdbArgs>());
  GPUOPS_ASSIGN_OR_RETURN(GemmView g, ViewGemm(l, mem, args, args.ldb, /*vector_loads=*/true));
  return WholeTile(kVariants[v], l, g, std::nullopt);
}

absl::Status WholeTileScaledAcc(Variant v, const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(ScaledAccArgs args, l.Unpack<ScaledAccArgs>());
  GPUOPS_ASSIGN_OR_RETURN(GemmView g, ViewGemm(l, mem, args, args.k, /*vector_loads=*/true));
  return WholeTile(kVariants[v], l, g, args.scale);
}

// dense_gemm_bf16_splitk_partial: thread (x, y) of block (bx, by, split) owns one partial.
absl::Status SplitKPartial(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(SplitKPartialArgs args, l.Unpack<SplitKPartialArgs>());
  const uint32_t m = args.m, n = args.n, k = args.k, splits = args.splits;
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(m, n), k)));
  GemmView g{.m = m, .n = n, .k = k, .ldb = k};
  GPUOPS_ASSIGN_OR_RETURN(
      g.a, mem.View<uint16_t>(args.a, uint64_t{m} * k, ArgLabel(&SplitKPartialArgs::a)));
  GPUOPS_ASSIGN_OR_RETURN(g.b, mem.View<uint16_t>(args.b, n == 0 ? 0 : uint64_t{n - 1} * k + k,
                                                  ArgLabel(&SplitKPartialArgs::b)));
  GPUOPS_ASSIGN_OR_RETURN(auto ws, mem.View<float>(args.workspace, uint64_t{splits} * m * n,
                                                   ArgLabel(&SplitKPartialArgs::workspace)));
  if (splits == 0) return absl::OkStatus();
  const uint32_t chunk = SplitKChunk(k, splits);
  std::vector<float> acc;
  for (uint64_t split = 0; split < std::min<uint64_t>(l.grid().z, splits); ++split) {
    const uint32_t begin = std::min<uint64_t>(k, split * chunk);
    const uint32_t end = std::min(k, begin + chunk);
    ForEachNFastTile(l, m, n, SplitKTile::kM, SplitKTile::kN, l.block().y, l.block().x,
                     [&](uint32_t row0, uint32_t rows, uint32_t col0, uint32_t cols) {
                       TileSums(g, row0, rows, col0, cols, begin, end, /*fused=*/true, acc);
                       for (uint32_t r = 0; r < rows; ++r) {
                         for (uint32_t j = 0; j < cols; ++j) {
                           ws[(split * m + row0 + r) * n + col0 + j] = acc[size_t{r} * cols + j];
                         }
                       }
                     });
  }
  return absl::OkStatus();
}

// dense_gemm_bf16_splitk_reduce: thread x of block (bx, row) owns column bx*256 + x.
absl::Status SplitKReduce(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_ASSIGN_OR_RETURN(SplitKReduceArgs args, l.Unpack<SplitKReduceArgs>());
  const uint32_t m = args.m, n = args.n, splits = args.splits;
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(m, n), splits)));
  GPUOPS_ASSIGN_OR_RETURN(auto ws, mem.View<float>(args.workspace, uint64_t{splits} * m * n,
                                                   ArgLabel(&SplitKReduceArgs::workspace)));
  GPUOPS_ASSIGN_OR_RETURN(
      auto c, mem.View<uint16_t>(args.c, uint64_t{m} * n, ArgLabel(&SplitKReduceArgs::c)));
  for (uint64_t row = 0; row < std::min<uint64_t>(l.grid().y, m); ++row) {
    for (uint64_t bx = 0; bx < l.grid().x; ++bx) {
      for (uint64_t t = 0; t < l.block().x; ++t) {
        const uint64_t col = bx * SplitKTile::kReduceThreads + t;
        if (col >= n) continue;
        float sum = 0.0f;
        for (uint64_t s = 0; s < splits; ++s) sum = sum + ws[(s * m + row) * n + col];
        c[row * n + col] = FloatToBf16(sum);
      }
    }
  }
  return absl::OkStatus();
}

// dense_gemm_bf16_tail_reduce: block (t, y) owns rows [16 y, 16 y + 16) of tail tile
// first_tile + t, summing its slots s x tail_tiles + t (tile-local tile_m x tile_n FP32 blocks)
// in split order into C.
absl::Status TailReduce(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, {kTailReduceThreads, 1, 1}));
  GPUOPS_ASSIGN_OR_RETURN(TailReduceArgs args, l.Unpack<TailReduceArgs>());
  const uint32_t m = args.m, n = args.n, splits = args.splits;
  const uint32_t tile_m = args.tile_m, tile_n = args.tile_n;
  if (tile_m == 0 || tile_n == 0 || tile_n % 4 != 0 || splits == 0) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": tile ", tile_m, " x ", tile_n, " and splits=", splits,
               " (tiles of 4-column FP32 groups, one split or more)"));
  }
  const uint64_t tile_elems = uint64_t{tile_m} * tile_n;
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(tile_elems, splits),
                                                    args.tail_tiles)));
  GPUOPS_RETURN_IF_ERROR(
      RequireArgAligned(l, args.workspace, ArgLabel(&TailReduceArgs::workspace), 16));
  GPUOPS_ASSIGN_OR_RETURN(
      auto ws, mem.View<float>(args.workspace, uint64_t{args.tail_tiles} * splits * tile_elems,
                               ArgLabel(&TailReduceArgs::workspace)));
  GPUOPS_ASSIGN_OR_RETURN(
      auto c, mem.View<uint16_t>(args.c, uint64_t{m} * n, ArgLabel(&TailReduceArgs::c)));
  const uint32_t num_m = CeilDiv(m, tile_m), num_n = CeilDiv(n, tile_n);
  for (uint64_t t = 0; t < std::min<uint64_t>(l.grid().x, args.tail_tiles); ++t) {
    const TileCoord coord = PersistentTileCoords(args.first_tile + static_cast<uint32_t>(t),
                                                 num_m, num_n, WgmmaTile<128>::kGroupM);
    for (uint64_t y = 0; y < l.grid().y; ++y) {
      for (uint64_t r = y * kTailReduceRows; r < std::min<uint64_t>((y + 1) * kTailReduceRows,
                                                                     tile_m);
           ++r) {
        const uint64_t row = uint64_t{coord.m_block} * tile_m + r;
        if (row >= m) continue;
        const uint64_t local_row = row - TileFirstRow(coord.m_block, tile_m, m);
        for (uint64_t j = 0; j < tile_n; ++j) {
          const uint64_t col = uint64_t{coord.n_block} * tile_n + j;
          if (col >= n) continue;
          float sum = 0.0f;
          for (uint64_t s = 0; s < splits; ++s) {
            sum = sum + ws[(s * args.tail_tiles + t) * tile_elems + local_row * tile_n + j];
          }
          c[row * n + col] = FloatToBf16(sum);
        }
      }
    }
  }
  return absl::OkStatus();
}

// The gemv kernels' block: (32 W, 1, 1) warps with W <= GemvTile::kMaxWarps, and the shared
// memory their partial sums take.
absl::Status RequireGemvBlock(const HostLaunch& l, uint32_t n_tiles) {
  const uint32_t warps = l.block().x / 32;
  if (l.block().x % 32 != 0 || warps < 1 || warps > GemvTile::kMaxWarps || l.block().y != 1 ||
      l.block().z != 1) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": launched with block ",
                                             ToString(l.block()),
                                             ", the kernel needs (32 W, 1, 1) with 1 <= W <= ",
                                             GemvTile::kMaxWarps));
  }
  return RequireSharedMem(l, GemvSharedBytes(warps, n_tiles), StrCat(warps, " warps"));
}

// dense_gemv_bf16_m8 / _m16: block (32 W, 1, 1) with its partials' shared memory; block b owns
// weight rows [16 b, 16 b + 16) for activation rows below 8 n_tiles.
// The _unaligned kernels read A and B at any 2-byte alignment and any K and ldb >= K; their block
// b owns the rows RowClassFirstRow(b) + 8 i, i < 16 (row classes).
absl::Status Gemv(uint32_t n_tiles, const DenseExtra& extra, const HostLaunch& l,
                  HostMemory& mem) {
  const bool any_alignment = extra.any_alignment;
  GPUOPS_RETURN_IF_ERROR(RequireGemvBlock(l, n_tiles));
  GPUOPS_ASSIGN_OR_RETURN(LdbArgs args, l.Unpack<LdbArgs>());
  if (any_alignment) {
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.a, ArgLabel(&LdbArgs::a), 2));
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.b, ArgLabel(&LdbArgs::b), 2));
  }
  GPUOPS_ASSIGN_OR_RETURN(GemmView g, ViewGemm(l, mem, args, args.ldb, !any_alignment));
  const uint32_t rows = std::min(g.m, 8 * n_tiles);
  std::vector<float> acc;
  // Writes the outputs of weight rows [col0, col0 + cols).
  auto columns = [&](uint32_t col0, uint32_t cols) {
    TileSums(g, 0, rows, col0, cols, 0, g.k, false, acc);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t j = 0; j < cols; ++j) {
        g.c[size_t{r} * g.n + col0 + j] = FloatToBf16(acc[size_t{r} * cols + j]);
      }
    }
  };
  for (uint64_t bx = 0; bx < l.grid().x; ++bx) {
    if (extra.row_classes) {
      const uint64_t first = RowClassFirstRow(static_cast<uint32_t>(bx));
      for (uint64_t i = 0; i < GemvTile::kRows; ++i) {
        const uint64_t row = first + GemvTile::kRowClasses * i;
        if (row < g.n) columns(static_cast<uint32_t>(row), 1);
      }
      continue;
    }
    const uint64_t col0 = bx * GemvTile::kRows;
    if (col0 >= g.n) continue;
    columns(static_cast<uint32_t>(col0),
            static_cast<uint32_t>(std::min<uint64_t>(GemvTile::kRows, g.n - col0)));
  }
  return absl::OkStatus();
}

// dense_gemv_bf16_m32_shifted / _m64_shifted: the _unaligned gemv's blocks (row classes), reading
// A from dense_shift_rows_bf16's copies: a holds ShiftTile::kCopies copies of M rows of
// ShiftedRowElems(K) elements, and a block whose rows start `lead` elements past a 16-byte
// boundary reads copy `lead`, element e + lead for weight element e.
absl::Status GemvShifted(uint32_t n_tiles, const HostLaunch& l, HostMemory& mem) {
  GPUOPS_RETURN_IF_ERROR(RequireGemvBlock(l, n_tiles));
  GPUOPS_ASSIGN_OR_RETURN(LdbArgs args, l.Unpack<LdbArgs>());
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.a, ArgLabel(&LdbArgs::a), 16));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.b, ArgLabel(&LdbArgs::b), 2));
  if (args.ldb < args.k) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": ldb=", args.ldb, " < k=", args.k, " (B rows overlap)"));
  }
  const uint32_t m = args.m, n = args.n, k = args.k, ldb = args.ldb;
  const uint64_t a_ld = ShiftedRowElems(k);
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(m, n), k)));
  GPUOPS_ASSIGN_OR_RETURN(
      auto a, mem.View<uint16_t>(args.a, SaturatingMul(uint64_t{ShiftTile::kCopies} * m, a_ld),
                                 ArgLabel(&LdbArgs::a)));
  GPUOPS_ASSIGN_OR_RETURN(
      auto b, mem.View<uint16_t>(args.b, n == 0 ? 0 : uint64_t{n - 1} * ldb + k,
                                 ArgLabel(&LdbArgs::b)));
  GPUOPS_ASSIGN_OR_RETURN(auto c,
                          mem.View<uint16_t>(args.c, uint64_t{m} * n, ArgLabel(&LdbArgs::c)));
  const uint32_t rows = std::min(m, 8 * n_tiles);
  for (uint64_t bx = 0; bx < l.grid().x; ++bx) {
    const uint64_t first = RowClassFirstRow(static_cast<uint32_t>(bx));
    if (first >= n) continue;
    const uint64_t lead = (args.b.address() + 2 * first * ldb) % 16 / 2;
    for (uint64_t i = 0; i < GemvTile::kRows; ++i) {
      const uint64_t col = first + GemvTile::kRowClasses * i;
      if (col >= n) continue;
      for (uint32_t r = 0; r < rows; ++r) {
        const uint16_t* x = &a[(lead * m + r) * a_ld + lead];
        const uint16_t* w = &b[col * ldb];
        float acc = 0.0f;
        for (uint32_t e = 0; e < k; ++e) acc = acc + Bf16ToFloat(x[e]) * Bf16ToFloat(w[e]);
        c[uint64_t{r} * n + col] = FloatToBf16(acc);
      }
    }
  }
  return absl::OkStatus();
}

// dense_shift_rows_bf16: block (r, L, j) writes elements [j kChunk, (j + 1) kChunk) below dst_ld
// of copy L's row r: src[r, e - L] for L <= e < cols + L, zero elsewhere.
absl::Status ShiftRows(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, {ShiftTile::kThreads, 1, 1}));
  GPUOPS_ASSIGN_OR_RETURN(PackArgs args, l.Unpack<PackArgs>());
  const uint32_t rows = args.rows, cols = args.cols;
  if (args.src_ld < cols || args.dst_ld != ShiftedRowElems(cols)) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": src_ld=", args.src_ld,
                                             " must be >= cols=", cols, " and dst_ld=",
                                             args.dst_ld, " must be ", ShiftedRowElems(cols)));
  }
  if (l.grid().y > ShiftTile::kCopies) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": grid.y=", l.grid().y, " exceeds the ",
                                             ShiftTile::kCopies, " copies"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.src, ArgLabel(&PackArgs::src), 2));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.dst, ArgLabel(&PackArgs::dst), 16));
  GPUOPS_RETURN_IF_ERROR(
      l.ChargeWork(SaturatingMul(SaturatingMul(rows, args.dst_ld), ShiftTile::kCopies)));
  const uint64_t src_elems = rows == 0 ? 0 : uint64_t{rows - 1} * args.src_ld + cols;
  GPUOPS_ASSIGN_OR_RETURN(auto src,
                          mem.View<uint16_t>(args.src, src_elems, ArgLabel(&PackArgs::src)));
  GPUOPS_ASSIGN_OR_RETURN(
      auto dst, mem.View<uint16_t>(args.dst, uint64_t{l.grid().y} * rows * args.dst_ld,
                                   ArgLabel(&PackArgs::dst)));
  for (uint64_t r = 0; r < std::min<uint64_t>(l.grid().x, rows); ++r) {
    for (uint64_t lead = 0; lead < l.grid().y; ++lead) {
      for (uint64_t j = 0; j < l.grid().z; ++j) {
        const uint64_t end = std::min<uint64_t>(args.dst_ld, (j + 1) * ShiftTile::kChunk);
        for (uint64_t e = j * ShiftTile::kChunk; e < end; ++e) {
          dst[(lead * rows + r) * args.dst_ld + e] =
              e >= lead && e - lead < cols ? src[r * args.src_ld + e - lead] : uint16_t{0};
        }
      }
    }
  }
  return absl::OkStatus();
}

// dense_pack_rows_bf16: block (r, j) writes elements [j kChunk, (j + 1) kChunk) of row r below
// dst_ld: src's element below cols, zero past it.
absl::Status PackRows(const HostLaunch& l, HostMemory& mem) {
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, {PackTile::kThreads, 1, 1}));
  GPUOPS_ASSIGN_OR_RETURN(PackArgs args, l.Unpack<PackArgs>());
  const uint32_t rows = args.rows, cols = args.cols;
  if (args.src_ld < cols || args.dst_ld < cols) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": src_ld=", args.src_ld, " and dst_ld=",
                                             args.dst_ld, " must be >= cols=", cols));
  }
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.src, ArgLabel(&PackArgs::src), 2));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.dst, ArgLabel(&PackArgs::dst), 2));
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(rows, args.dst_ld)));
  const uint64_t src_elems = rows == 0 ? 0 : uint64_t{rows - 1} * args.src_ld + cols;
  const uint64_t dst_elems = rows == 0 ? 0 : uint64_t{rows - 1} * args.dst_ld + args.dst_ld;
  GPUOPS_ASSIGN_OR_RETURN(auto src,
                          mem.View<uint16_t>(args.src, src_elems, ArgLabel(&PackArgs::src)));
  GPUOPS_ASSIGN_OR_RETURN(auto dst,
                          mem.View<uint16_t>(args.dst, dst_elems, ArgLabel(&PackArgs::dst)));
  for (uint64_t r = 0; r < std::min<uint64_t>(l.grid().x, rows); ++r) {
    for (uint64_t j = 0; j < l.grid().y; ++j) {
      const uint64_t end = std::min<uint64_t>(args.dst_ld, (j + 1) * PackTile::kChunk);
      for (uint64_t c = j * PackTile::kChunk; c < end; ++c) {
        dst[r * args.dst_ld + c] = c < cols ? src[r * args.src_ld + c] : uint16_t{0};
      }
    }
  }
  return absl::OkStatus();
}

// How a wgmma kernel deals out its units (hopper.cuh's Schedule).
enum class Units { kTiles, kSplitK, kTail };

// dense_gemm_bf16_wgmma_*: A and B arrive as tensor maps, which must describe the [M, K] and
// [N, K] operands with the kernel's boxes and swizzle; block b walks units b, b + grid.x, ...
// kSplitK: unit u is tile u % tiles over the k-blocks of split u / tiles (SplitKBlocks), whose
// FP32 sums go to workspace[split][M][N]. kTail: the grid's whole waves of tiles write C, the
// last wave's tiles (TailOf over grid.x) run as `splits` units each into tile-local FP32 slots
// of the workspace. Otherwise units are tiles and C is BF16.
template <uint32_t kTileN, uint32_t kConsumers, Units kUnits>
absl::Status Wgmma(const HostLaunch& l, HostMemory& mem) {
  using T = WgmmaTile<kTileN, kConsumers>;
  constexpr bool kSplitK = kUnits == Units::kSplitK;
  constexpr bool kTail = kUnits == Units::kTail;
  using Args = std::conditional_t<kSplitK, TmaSplitKArgs,
                                  std::conditional_t<kTail, TmaTailArgs, TmaArgs>>;
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, {T::kThreads, 1, 1}));
  GPUOPS_RETURN_IF_ERROR(RequireSharedMem(l, T::kSharedBytes, "its stages"));
  GPUOPS_ASSIGN_OR_RETURN(Args args, l.Unpack<Args>());
  const uint32_t m = args.m, n = args.n, k = args.k;
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(m, n), k)));
  uint32_t splits = 1;
  if constexpr (kSplitK || kTail) {
    splits = args.splits;
    const uint32_t k_blocks = CeilDiv(k, T::kK);
    if (splits < 1 || splits > k_blocks) {
      return absl::InvalidArgumentError(StrCat(l.kernel(), ": ", ArgLabel(&Args::splits), " is ",
                                               splits, ", the kernel needs 1..", k_blocks,
                                               " (one k-block of ", T::kK, " per split at least)"));
    }
  }
  GPUOPS_ASSIGN_OR_RETURN(TensorMapDesc a_map, CheckTensorMap(l, args.a_map, ArgLabel(&Args::a_map),
                                                              TensorMapDataType::kBF16, m, k,
                                                              ABoxRows(T::kM, m), T::kK));
  GPUOPS_ASSIGN_OR_RETURN(TensorMapDesc b_map,
                          CheckTensorMap(l, args.b_map, ArgLabel(&Args::b_map),
                                         TensorMapDataType::kBF16, n, k, T::kN, T::kK));
  GemmView g{.m = m, .n = n, .k = k, .ldb = static_cast<uint32_t>(b_map.global_strides[1] / 2)};
  GPUOPS_ASSIGN_OR_RETURN(
      g.a, mem.View<uint16_t>(a_map.global_address, uint64_t{m} * k, ArgLabel(&Args::a_map)));
  GPUOPS_ASSIGN_OR_RETURN(g.b, mem.View<uint16_t>(b_map.global_address, uint64_t{n - 1} * g.ldb + k,
                                                  ArgLabel(&Args::b_map)));
  const uint32_t num_m = CeilDiv(m, T::kM);
  const uint32_t num_n = CeilDiv(n, T::kN);
  const uint64_t tiles = uint64_t{num_m} * num_n;
  const uint32_t k_blocks = CeilDiv(k, T::kK);
  const auto grid = static_cast<uint32_t>(l.grid().x);
  const TailTiles tail = kTail ? TailOf(static_cast<uint32_t>(tiles), grid, splits)
                               : TailTiles{static_cast<uint32_t>(tiles), 0};
  const uint64_t slot_elems = uint64_t{T::kM} * T::kN;
  absl::Span<float> ws;
  if constexpr (kSplitK) {
    GPUOPS_ASSIGN_OR_RETURN(
        ws, mem.View<float>(args.workspace, uint64_t{splits} * m * n, ArgLabel(&Args::workspace)));
  } else {
    GPUOPS_ASSIGN_OR_RETURN(g.c, mem.View<uint16_t>(args.c, uint64_t{m} * n, ArgLabel(&Args::c)));
  }
  if constexpr (kTail) {
    if (tail.tail_tiles != 0) {
      GPUOPS_ASSIGN_OR_RETURN(ws, mem.View<float>(args.workspace,
                                                  uint64_t{tail.tail_tiles} * splits * slot_elems,
                                                  ArgLabel(&Args::workspace)));
    }
  }
  const uint64_t units =
      kSplitK ? tiles * splits : uint64_t{tail.dp_tiles} + uint64_t{tail.tail_tiles} * splits;
  std::vector<float> acc;
  for (uint64_t block = 0; block < grid; ++block) {
    for (uint64_t u = block; u < units; u += grid) {
      // The unit's tile, k-blocks and partial slot, as hopper.cuh's UnitOf deals them.
      uint32_t tile = static_cast<uint32_t>(u);
      uint32_t split = 0;
      uint64_t slot = 0;
      bool partial = false;
      if (kSplitK) {
        tile = static_cast<uint32_t>(u % tiles);
        split = static_cast<uint32_t>(u / tiles);
        partial = true;
      } else if (kTail && u >= tail.dp_tiles) {
        slot = u - tail.dp_tiles;
        tile = tail.dp_tiles + static_cast<uint32_t>(slot % tail.tail_tiles);
        split = static_cast<uint32_t>(slot / tail.tail_tiles);
        partial = true;
      }
      const TileCoord coord = PersistentTileCoords(tile, num_m, num_n, T::kGroupM);
      const KBlockRange range =
          partial ? SplitKBlocks(split, splits, k_blocks) : KBlockRange{0, k_blocks};
      // The tile computes rows [first, first + rows) (TileFirstRow: a last m-block reaching
      // past M starts at M - tile rows) and stores those from row0 on; a tail partial holds
      // them all, tile-local from first.
      const uint32_t row0 = coord.m_block * T::kM;
      const uint32_t first = TileFirstRow(coord.m_block, T::kM, m);
      const uint32_t col0 = coord.n_block * T::kN;
      const uint32_t rows = std::min(T::kM, m - first);
      const uint32_t cols = std::min(T::kN, n - col0);
      TileSums(g, first, rows, col0, cols, range.begin * T::kK, std::min(k, range.end * T::kK),
               false, acc);
      for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t j = 0; j < cols; ++j) {
          const float v = acc[size_t{r} * cols + j];
          const size_t at = size_t{first + r} * n + col0 + j;
          if (partial && !kSplitK) {
            ws[slot * slot_elems + size_t{r} * T::kN + j] = v;
          } else if (first + r < row0) {
            continue;  // the m-block before's row
          } else if (kSplitK) {
            ws[size_t{split} * m * n + at] = v;
          } else {
            g.c[at] = FloatToBf16(v);
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

// dense_gemm_bf16_wgmma_*_classes: a_map must cover dense_shift_rows_bf16's eight copies of A
// (8 M rows of ShiftedRowElems(K)), b_map0..7 the eight row classes of one B
// (dense_row_class_maps.h): class 0's map and shift give B's base and ldb, and every map and
// shift must equal RowClassesOf(that B). Block b walks tiles b, b + grid.x, ... over ClassTiles'
// n-blocks; a tile sums copy `shift` of A against its class's rows over each row's K elements in
// k order (the zeroed row heads and the zero-filled columns past K add nothing) and stores its
// rows of C at its class's columns.
template <uint32_t kTileN, uint32_t kConsumers>
absl::Status WgmmaClasses(const HostLaunch& l, HostMemory& mem) {
  using T = WgmmaTile<kTileN, kConsumers>;
  using Args = TmaRowClassArgs;
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, {T::kThreads, 1, 1}));
  GPUOPS_RETURN_IF_ERROR(RequireSharedMem(l, T::kSharedBytes, "its stages"));
  GPUOPS_ASSIGN_OR_RETURN(Args args, l.Unpack<Args>());
  const uint32_t m = args.m, n = args.n, k = args.k;
  if (m == 0 || n == 0 || k == 0) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": empty problem m=", m, " n=", n, " k=", k));
  }
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(m, n), k)));
  const uint64_t a_ld = ShiftedRowElems(k);
  GPUOPS_ASSIGN_OR_RETURN(
      TensorMapDesc a_map,
      CheckTensorMap(l, args.a_map, ArgLabel(&Args::a_map), TensorMapDataType::kBF16,
                     ShiftTile::kCopies * m, static_cast<uint32_t>(a_ld), ABoxRows(T::kM, m),
                     T::kK));
  if (a_map.global_strides[1] != a_ld * 2) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": ", ArgLabel(&Args::a_map),
                                             " rows are ", a_map.global_strides[1],
                                             " bytes apart, the copies of A ", a_ld * 2));
  }
  const TensorMapBytes* maps[ClassTiles::kClasses] = {&args.b_map0, &args.b_map1, &args.b_map2,
                                                      &args.b_map3, &args.b_map4, &args.b_map5,
                                                      &args.b_map6, &args.b_map7};
  GPUOPS_ASSIGN_OR_RETURN(const TensorMapDesc first, DecodeHostTensorMap(*maps[0]));
  if (first.global_strides[1] % 16 != 0) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": b_map0's row stride ",
                                             first.global_strides[1],
                                             " bytes is not 16 ldb (rows 8 apart)"));
  }
  const auto ldb = static_cast<uint32_t>(first.global_strides[1] / 16);
  const uint64_t b_address =
      first.global_address.address() + 2 * ClassTiles::ShiftOf(args.b_shifts, 0);
  if (ldb < k) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": ldb=", ldb, " < k=", k, " (B rows overlap)"));
  }
  const auto classes = RowClassesOf(b_address, ldb, n);
  for (uint32_t r = 0; r < ClassTiles::kClasses; ++r) {
    GPUOPS_ASSIGN_OR_RETURN(const TensorMapDesc d, DecodeHostTensorMap(*maps[r]));
    const RowClass& want = classes[r];
    if (d.rank != 2 || d.data_type != TensorMapDataType::kBF16 ||
        d.global_address.address() != want.address || d.global_dims[0] != k + want.shift ||
        d.global_dims[1] != want.rows || d.global_strides[1] != want.stride_bytes ||
        d.box_dims[0] != T::kK || d.box_dims[1] != T::kN ||
        d.swizzle != TensorMapSwizzle::k128B ||
        ClassTiles::ShiftOf(args.b_shifts, r) != want.shift) {
      return absl::InvalidArgumentError(StrCat(
          l.kernel(), ": b_map", r, " (shift ", ClassTiles::ShiftOf(args.b_shifts, r),
          ") is not row class ", r, " of a B at 0x", Hex(b_address), " with ldb=", ldb,
          ": the kernel needs a ", want.rows, " x ", k + want.shift, " tensor at 0x",
          Hex(want.address), ", rows ", want.stride_bytes, " bytes apart, box ", T::kN, " x ",
          T::kK, ", 128-byte swizzle, shift ", want.shift));
    }
  }
  GPUOPS_ASSIGN_OR_RETURN(auto a, mem.View<uint16_t>(a_map.global_address,
                                                     ShiftTile::kCopies * m * a_ld,
                                                     ArgLabel(&Args::a_map)));
  GPUOPS_ASSIGN_OR_RETURN(auto b, mem.View<uint16_t>(DevicePtr(b_address),
                                                     uint64_t{n - 1} * ldb + k,
                                                     ArgLabel(&Args::b_map0)));
  GPUOPS_ASSIGN_OR_RETURN(auto c, mem.View<uint16_t>(args.c, uint64_t{m} * n, ArgLabel(&Args::c)));
  const uint32_t num_m = CeilDiv(m, T::kM);
  const uint32_t num_n = ClassTiles::NBlocks(n, T::kN);
  const uint64_t tiles = uint64_t{num_m} * num_n;
  const auto grid = static_cast<uint32_t>(l.grid().x);
  for (uint64_t block = 0; block < grid; ++block) {
    for (uint64_t u = block; u < tiles; u += grid) {
      const TileCoord coord = PersistentTileCoords(static_cast<uint32_t>(u), num_m, num_n,
                                                   T::kGroupM);
      const ClassTiles::Block block = ClassTiles::BlockOf(coord.n_block, n, T::kN);
      const uint64_t shift = ClassTiles::ShiftOf(args.b_shifts, block.cls);
      const uint32_t row0 = coord.m_block * T::kM;
      const uint32_t first = TileFirstRow(coord.m_block, T::kM, m);
      const uint32_t rows = std::min(T::kM, m - first);
      for (uint32_t j = 0; j < T::kN; ++j) {
        const uint64_t col = ClassTiles::Column(block, T::kN, j);
        if (col >= n) continue;
        const uint16_t* w = &b[col * ldb];
        for (uint32_t r = 0; r < rows; ++r) {
          if (first + r < row0) continue;  // the m-block before's row
          const uint16_t* x = &a[(shift * m + first + r) * a_ld + shift];
          float acc = 0.0f;
          for (uint32_t e = 0; e < k; ++e) acc = acc + Bf16ToFloat(x[e]) * Bf16ToFloat(w[e]);
          c[uint64_t{first + r} * n + col] = FloatToBf16(acc);
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterHostKernels(HostKernelRegistry& registry) {
  for (const VariantSpec& spec : kVariants.rows()) {
    const Variant v = spec.variant;
    HostKernelFn fn;
    switch (v) {
      case Variant::kScalar:
        fn = Scalar;
        break;
      case Variant::kRouter:
      case Variant::kTensorCore:
      case Variant::kPipelined:
        fn = [v](const HostLaunch& l, HostMemory& mem) { return WholeTileMnk(v, l, mem); };
        break;
      case Variant::kTensorCoreLdb:
      case Variant::kPipelinedLdb:
        fn = [v](const HostLaunch& l, HostMemory& mem) { return WholeTileLdb(v, l, mem); };
        break;
      case Variant::kTensorCoreScaledAcc:
        fn = [v](const HostLaunch& l, HostMemory& mem) { return WholeTileScaledAcc(v, l, mem); };
        break;
      case Variant::kSplitK:
        fn = SplitKPartial;
        break;
      case Variant::kGemvM32Shifted:
      case Variant::kGemvM64Shifted:
        fn = [n_tiles = CeilDiv(spec.max_m, 8)](const HostLaunch& l, HostMemory& mem) {
          return GemvShifted(n_tiles, l, mem);
        };
        break;
      case Variant::kGemvM8:
      case Variant::kGemvM16:
      case Variant::kGemvM8Unaligned:
      case Variant::kGemvM16Unaligned:
      case Variant::kGemvM32Unaligned: {
        const uint32_t n_tiles = CeilDiv(spec.max_m, 8);
        fn = [n_tiles, extra = spec.extra](const HostLaunch& l, HostMemory& mem) {
          return Gemv(n_tiles, extra, l, mem);
        };
        break;
      }
      case Variant::kPacked:
        fn = PackRows;
        break;
      case Variant::kWgmma128x256:
        fn = Wgmma<256, 2, Units::kTiles>;
        break;
      case Variant::kWgmma128x128:
      case Variant::kWgmma128x128PingPong:  // the same tiles per block, the same sums
        fn = Wgmma<128, 2, Units::kTiles>;
        break;
      case Variant::kWgmma128x128SplitK:
        fn = Wgmma<128, 2, Units::kSplitK>;
        break;
      case Variant::kWgmma64x128:
        fn = Wgmma<128, 1, Units::kTiles>;
        break;
      case Variant::kWgmma64x128SplitK:
        fn = Wgmma<128, 1, Units::kSplitK>;
        break;
      case Variant::kWgmma64x64:
        fn = Wgmma<64, 1, Units::kTiles>;
        break;
      case Variant::kWgmma128x256SplitK:
        fn = Wgmma<256, 2, Units::kSplitK>;
        break;
      case Variant::kWgmma128x192:
      case Variant::kWgmma128x192PingPong:
        fn = Wgmma<192, 2, Units::kTiles>;
        break;
      case Variant::kWgmma192x192:
        fn = Wgmma<192, 3, Units::kTiles>;
        break;
      case Variant::kWgmma192x128:
        fn = Wgmma<128, 3, Units::kTiles>;
        break;
      case Variant::kWgmma192x64:
        fn = Wgmma<64, 3, Units::kTiles>;
        break;
      case Variant::kWgmma128x256Tail:
        fn = Wgmma<256, 2, Units::kTail>;
        break;
      case Variant::kWgmma128x192Tail:
        fn = Wgmma<192, 2, Units::kTail>;
        break;
      case Variant::kWgmma128x144:
      case Variant::kWgmma128x144PingPong:
        fn = Wgmma<144, 2, Units::kTiles>;
        break;
      case Variant::kWgmma128x96:
      case Variant::kWgmma128x96PingPong:
        fn = Wgmma<96, 2, Units::kTiles>;
        break;
      case Variant::kWgmma128x160:
      case Variant::kWgmma128x160PingPong:
        fn = Wgmma<160, 2, Units::kTiles>;
        break;
      case Variant::kWgmma128x176:
      case Variant::kWgmma128x176PingPong:
        fn = Wgmma<176, 2, Units::kTiles>;
        break;
      case Variant::kWgmma128x128Tail:
        fn = Wgmma<128, 2, Units::kTail>;
        break;
      case Variant::kWgmma192x128SplitK:
        fn = Wgmma<128, 3, Units::kSplitK>;
        break;
      case Variant::kWgmma192x128Tail:
        fn = Wgmma<128, 3, Units::kTail>;
        break;
      case Variant::kWgmma128x112:
      case Variant::kWgmma128x112PingPong:
        fn = Wgmma<112, 2, Units::kTiles>;
        break;
      case Variant::kWgmma64x64Classes:
        fn = WgmmaClasses<64, 1>;
        break;
      case Variant::kWgmma64x128Classes:
        fn = WgmmaClasses<128, 1>;
        break;
      case Variant::kWgmma128x128Classes:
        fn = WgmmaClasses<128, 2>;
        break;
    }
    registry.Register(spec.kernel, std::move(fn));
    if (spec.shape == ArgShape::kTmaTail) {
      registry.Register(spec.second_kernel, TailReduce);
    } else if (!spec.second_kernel.empty()) {
      registry.Register(spec.second_kernel, SplitKReduce);
    }
  }
  registry.Register(kShiftRowsKernel, ShiftRows);
}

}  // namespace gpuops::ops::dense
