#include "ops/dense/dense_gemm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "gpuops/runtime/tensor_map.h"
#include "ops/dense/dense_row_class_maps.h"
#include "ops/dense/dense_time_model.h"

namespace gpuops::ops::dense {
namespace {

uint32_t EffectiveLdb(const GemmArgs& args) { return args.ldb == 0 ? args.k : args.ldb; }

// Whether every operand suits the 16-byte kernels: A, B and C 16-byte aligned, K and ldb
// multiples of 8.
bool SixteenByteOperands(const GemmArgs& args) {
  bool aligned = args.k % 8 == 0 && EffectiveLdb(args) % 8 == 0;
  for (const DeviceSpan& span : {args.a, args.b, args.c}) aligned &= span.address() % 16 == 0;
  return aligned;
}

// Where the packed variant keeps its copies in the workspace: A as [M, K8], B as [N, K8] (K8 =
// K rounded up to a multiple of 8), and C as [M, N] when C itself is not 16-byte aligned.
struct PackedLayout {
  uint32_t k8 = 0;
  bool copies_c = false;
  uint64_t a = 0, b = 0, c = 0;  // byte offsets
  uint64_t total = 0;
};
PackedLayout LayoutPacked(const GemmArgs& args) {
  constexpr uint64_t kAlign = PackTile::kAlign;
  PackedLayout l;
  l.k8 = static_cast<uint32_t>(AlignUp(args.k, PackTile::kRowMultiple));
  l.copies_c = args.c.address() % 16 != 0;
  const uint64_t a_bytes = SaturatingMul(SaturatingMul(args.m, l.k8), 2);
  const uint64_t b_bytes = SaturatingMul(SaturatingMul(args.n, l.k8), 2);
  const uint64_t c_bytes = l.copies_c ? SaturatingMul(SaturatingMul(args.m, args.n), 2) : 0;
  l.a = 0;
  l.b = SaturatingAdd(l.a, AlignUp(a_bytes, kAlign));
  l.c = SaturatingAdd(l.b, AlignUp(b_bytes, kAlign));
  l.total = SaturatingAdd(l.c, c_bytes);
  return l;
}

// Where the _classes wgmma tiles go first for operands the 16-byte kernels cannot read: M past
// the gemv kernels of M <= 16 and up to kClassesMaxM, and the picked tile's grid at least
// kClassesMinTiles tiles; else the _shifted gemv (M <= 64) and packed (its copies of A and B,
// then the aligned dispatcher's tiles). Set from the class tiles forced against the dispatcher
// on five ragged (N, K) at M = 17..512 (H100, bench/NOTES.md session 30): at M = 17..128 they ran
// 0.99-1.92x the old pick wherever their grid held 32 tiles or more, 0.78-0.95x the shifted gemv
// with 16 (N = 1005 at M <= 64); at M = 192..512 the best class tile ran 0.63-1.04x packed on
// 11008 x 4095 and 3072 x 3001 (0.91-0.94x on 1005 x 2053), 0.89-1.34x on the other two.
constexpr uint32_t kClassesMinM = 17;
constexpr uint32_t kClassesMaxM = 128;
constexpr uint64_t kClassesMinTiles = 32;
static_assert(kClassesMinM <= kClassesMaxM);
// Below kClassesMinM the _classes tiles also go first, before the _unaligned gemv, on weights of
// kClassesDecodeMinElems elements and more (given the workspace). Forced on an H100 at M = 1 and
// 4 (bench/NOTES.md session 42): 64 x 128 classes ran 1.13-1.27x gemv_m8_unaligned's speed on
// 11008 x 4095, 14336 x 4103, 8192 x 8191 and 28672 x 4097 (45-117M elements); on 4096 x 4099
// (16.8M) 64 x 64 classes 1.05x and 64 x 128 0.85x, so smaller weights keep the gemv. At M =
// 9..16 the sweeps agree: on 14336 x 4103 gemv_m16_unaligned took 73.6-74.5 us at M = 12 / 16
// against 64 x 128 classes' 59.2-59.6 at M = 24 (H100, session 39), 62-65 against 44-50 (H200,
// session 33).
constexpr uint64_t kClassesDecodeMinElems = uint64_t{1} << 25;

// A _classes variant's tiles: ceil(M / tile_m) m-blocks x ClassTiles::NBlocks n-blocks.
uint64_t ClassTileCount(const VariantSpec& spec, const GemmArgs& args) {
  return uint64_t{CeilDiv(args.m, spec.tile_m)} * ClassTiles::NBlocks(args.n, spec.tile_n);
}

// The _classes variants and their aligned twins (the same tiles, stages and k-loop).
constexpr std::array<std::pair<Variant, Variant>, 3> kClassTwins = {{
    {Variant::kWgmma64x64Classes, Variant::kWgmma64x64},
    {Variant::kWgmma64x128Classes, Variant::kWgmma64x128},
    {Variant::kWgmma128x128Classes, Variant::kWgmma128x128},
}};

// The least predicted saving for which a _tail variant splits its last wave (SplitsFor).
constexpr double kTailMinGain = 0.03;

// The _shifted variants' copies of A: k + 7 must stay within uint32 after rounding up.
constexpr uint32_t kMaxShiftedK = UINT32_MAX - 64;

// Grid of the dense_shift_rows_bf16 launch over A's m rows of k elements (ShiftTile).
LaunchDims ShiftDims(uint32_t m, uint32_t k) {
  return {{m, ShiftTile::kCopies, CeilDiv(ShiftedRowElems(k), ShiftTile::kChunk)},
          {ShiftTile::kThreads, 1, 1},
          0};
}

// Grid of one dense_pack_rows_bf16 launch over `rows` rows of `dst_ld` elements.
LaunchDims PackDims(uint32_t rows, uint32_t dst_ld) {
  return {{rows, CeilDiv(dst_ld, PackTile::kChunk), 1}, {PackTile::kThreads, 1, 1}, 0};
}

}  // namespace

absl::StatusOr<DenseGemm> DenseGemm::Load(GpuBackend& gpu) {
  return Load(gpu, EmbeddedModuleImage());
}

absl::StatusOr<DenseGemm> DenseGemm::Load(GpuBackend& gpu, const ModuleImage& image) {
  DenseGemm d;
  d.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(d.module_, LoadFamilyModule(gpu, image, &RegisterHostKernels));
  for (const VariantSpec& s : kVariants.rows()) {
    GPUOPS_ASSIGN_OR_RETURN(d.kernels_[static_cast<size_t>(s.variant)], d.BindVariant(s));
  }
  GPUOPS_ASSIGN_OR_RETURN(
      d.splitk_reduce_,
      BindKernel<SplitKReduceArgs>(d.module_, kVariants[Variant::kSplitK].second_kernel));
  GPUOPS_ASSIGN_OR_RETURN(d.shift_rows_, BindKernel<PackArgs>(d.module_, kShiftRowsKernel));
  GPUOPS_ASSIGN_OR_RETURN(d.tail_reduce_,
                          BindKernel<TailReduceArgs>(d.module_, kTailReduceKernel));
  return d;
}

absl::StatusOr<DenseGemm::AnyKernel> DenseGemm::BindVariant(const VariantSpec& s) const {
  auto bind = [&]<typename Args>() -> absl::StatusOr<AnyKernel> {
    GPUOPS_ASSIGN_OR_RETURN(TypedKernel<Args> kernel, BindKernel<Args>(module_, s.kernel));
    return AnyKernel(kernel);
  };
  switch (s.shape) {
    case ArgShape::kMnk:
      return bind.operator()<MnkArgs>();
    case ArgShape::kLdb:
    case ArgShape::kShiftedA:
      return bind.operator()<LdbArgs>();
    case ArgShape::kScaledAcc:
      return bind.operator()<ScaledAccArgs>();
    case ArgShape::kSplitK:
      return bind.operator()<SplitKPartialArgs>();
    case ArgShape::kTma:
      return bind.operator()<TmaArgs>();
    case ArgShape::kTmaSplitK:
      return bind.operator()<TmaSplitKArgs>();
    case ArgShape::kPack:
      return bind.operator()<PackArgs>();
    case ArgShape::kTmaTail:
      return bind.operator()<TmaTailArgs>();
    case ArgShape::kTmaRowClasses:
      return bind.operator()<TmaRowClassArgs>();
  }
  return absl::InternalError(StrCat(s.kernel, ": unknown argument shape"));
}

KernelHandle DenseGemm::kernel(Variant v) const {
  if (kVariants.Find(v) == nullptr) return KernelHandle();
  return std::visit([](const auto& k) { return k.handle(); }, kernels_[static_cast<size_t>(v)]);
}

bool DenseGemm::Ships(Variant v) const {
  const VariantSpec* spec = kVariants.Find(v);
  if (spec == nullptr || kernel(v).is_null()) return false;
  if (spec->shape == ArgShape::kShiftedA || spec->shape == ArgShape::kTmaRowClasses) {
    return !shift_rows_.is_null();
  }
  if (spec->shape == ArgShape::kTmaTail) return !tail_reduce_.is_null();
  return spec->second_kernel.empty() || !splitk_reduce_.is_null();
}

absl::Status DenseGemm::CanImplement(Variant v, const GemmArgs& args) const {
  GPUOPS_RETURN_IF_ERROR(CanImplementShape(v, args));
  const uint64_t ldb = args.ldb == 0 ? args.k : args.ldb;
  // WorkspaceBytes runs the time model for a _tail variant's splits: only for a workspace the
  // check compares (a sized one).
  const bool sized_ws = !args.workspace.unchecked() && !args.workspace.is_null();
  const uint64_t ws = sized_ws ? WorkspaceBytes(v, args) : 0;
  const uint64_t a_row = uint64_t{args.k} * 2, c_row = uint64_t{args.n} * 2;
  return RequireDisjoint(kVariants[v].kernel,
                         {OperandBytesOf("c", args.c, args.m, c_row, c_row),
                          OperandBytesOf("workspace", args.workspace, ws > 0 ? 1 : 0, ws, ws)},
                         {OperandBytesOf("a", args.a, args.m, a_row, a_row),
                          OperandBytesOf("b", args.b, args.n, a_row, ldb * 2)});
}

absl::Status DenseGemm::CanImplementShape(Variant v, const GemmArgs& args) const {
  GPUOPS_ASSIGN_OR_RETURN(const VariantSpec* found, kVariants.Get(v));
  const VariantSpec& spec = *found;
  const DeviceInfo& device = gpu_->device_info();
  if (!Ships(v)) return NotShipped(spec.kernel, device);
  if (args.m == 0 || args.n == 0 || args.k == 0) {
    return ArgumentError(spec.kernel,
                         StrCat("empty problem m=", args.m, " n=", args.n, " k=", args.k));
  }
  if (args.a.is_null() || args.b.is_null() || args.c.is_null()) {
    return ArgumentError(spec.kernel, "a, b and c must be non-null");
  }
  if (spec.max_m != 0 && args.m > spec.max_m) {
    return ArgumentError(spec.kernel,
                         StrCat("m=", args.m, " exceeds the kernel's ", spec.max_m, " rows"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireMultiple(spec.kernel, "k", args.k, spec.k_multiple,
                                         "A and B rows are loaded 16 bytes at a time"));
  if (args.n % spec.n_multiple != 0) {
    return ArgumentError(spec.kernel,
                         StrCat("n=", args.n, " is not a multiple of ", spec.n_multiple,
                                " (C rows are stored in aligned pairs); an _ldb "
                                "variant takes any N"));
  }
  const uint32_t ldb = EffectiveLdb(args);
  if (spec.extra.any_alignment) {
    if (ldb < args.k) {
      return ArgumentError(spec.kernel, StrCat("ldb=", ldb, " must be >= k=", args.k));
    }
  } else if (TakesLdb(spec.shape)) {
    if (ldb < args.k || ldb % 8 != 0) {
      return ArgumentError(spec.kernel, StrCat("ldb=", ldb, " must be >= k=", args.k,
                                               " and a multiple of 8 (16-byte-aligned B rows)"));
    }
  } else if (ldb != args.k) {
    return ArgumentError(spec.kernel, StrCat("ldb=", ldb, " differs from k=", args.k,
                                             "; only the _ldb variants take a B row stride"));
  }
  if (spec.second_kernel.empty() && args.splits != 0) {
    return ArgumentError(spec.kernel, StrCat("splits=", args.splits,
                                             ": the kernel does not split K (the split-K "
                                             "variants take splits)"));
  }
  if (spec.shape == ArgShape::kScaledAcc) {
    if (!std::isfinite(args.scale)) {
      return ArgumentError(spec.kernel, StrCat("scale=", args.scale, " is not finite"));
    }
  } else if (args.scale != 1.0f) {
    return ArgumentError(spec.kernel,
                         StrCat("scale=", args.scale, ": only tc_scaled_acc takes a scale"));
  }
  for (const auto& [name, span] : {std::pair{"a", args.a}, {"b", args.b}, {"c", args.c}}) {
    GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, name, span.ptr(), 2, "BF16 elements"));
  }
  if (!spec.extra.any_alignment && spec.k_multiple % 8 == 0) {
    for (const auto& [name, span] : {std::pair{"a", args.a}, {"b", args.b}, {"c", args.c}}) {
      GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, name, span.ptr(), 16, "16-byte loads"));
    }
  }
  const GemmExtents need = ExtentsOf(args);
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "a", args.a, need.a,
                                       StrCat("m=", args.m, " rows of k=", args.k, " BF16")));
  GPUOPS_RETURN_IF_ERROR(
      RequireExtent(spec.kernel, "b", args.b, need.b,
                    StrCat("n=", args.n, " rows of k=", args.k, " BF16, ldb=", ldb, " apart,")));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "c", args.c, need.c,
                                       StrCat("m=", args.m, " rows of n=", args.n, " BF16")));
  if (spec.shape == ArgShape::kPack) return CanImplementPacked(args);
  if (spec.shape == ArgShape::kShiftedA || spec.shape == ArgShape::kTmaRowClasses) {
    GPUOPS_RETURN_IF_ERROR(CanImplementShifted(spec, args));
  }
  if (spec.shape == ArgShape::kTmaTail) {
    GPUOPS_RETURN_IF_ERROR(CanImplementTail(spec, args));
  } else if (!spec.second_kernel.empty()) {
    const uint32_t splits = Splits(v, args);
    // The wgmma kernel gives each split at least one k-block of WgmmaTile<128>::kK.
    constexpr uint32_t kBlockK = WgmmaTile<128>::kK;
    const uint32_t max_splits = v == Variant::kSplitK
                                    ? SplitKTile::kMaxSplits
                                    : std::min(SplitKTile::kMaxSplits, CeilDiv(args.k, kBlockK));
    if (splits < 1 || splits > max_splits) {
      return ArgumentError(spec.kernel,
                           StrCat("splits=", splits, " is outside 1..", max_splits,
                                  v == Variant::kSplitK ? "" : " (at most one per 64 k)"));
    }
    if (args.m > device.max_grid.y) {
      return ArgumentError(spec.kernel, StrCat("m=", args.m, " exceeds the reduce grid's limit of ",
                                               device.max_grid.y, " rows"));
    }
    const uint64_t ws = WorkspaceBytes(v, args);
    if (args.workspace.is_null()) {
      return ArgumentError(spec.kernel,
                           StrCat("needs a workspace of ", ws, " bytes (WorkspaceBytes)"));
    }
    GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, "workspace", args.workspace.ptr(), 8,
                                          "FP32 partials are stored two at a time"));
    GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "workspace", args.workspace, ws,
                                         StrCat(splits, " splits of m=", args.m, " x n=", args.n,
                                                " FP32 partials (WorkspaceBytes)")));
  }
  return RequireGridFits(spec.kernel, Dims(spec, args).grid, device,
                         StrCat("m=", args.m, ", n=", args.n));
}

absl::Status DenseGemm::CanImplementTail(const VariantSpec& spec, const GemmArgs& args) const {
  const uint32_t splits = Splits(spec.variant, args);
  const uint32_t max_splits = std::min(kTailMaxSplits, CeilDiv(args.k, WgmmaTile<128>::kK));
  if (splits < 1 || splits > max_splits) {
    return ArgumentError(spec.kernel, StrCat("splits=", splits, " is outside 1..", max_splits,
                                             " (at most ", kTailMaxSplits,
                                             ", one per 64 k)"));
  }
  const uint64_t ws = WorkspaceBytes(spec.variant, args);
  if (ws > 0 && args.workspace.is_null()) {
    return ArgumentError(spec.kernel,
                         StrCat("needs a workspace of ", ws, " bytes (WorkspaceBytes)"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, "workspace", args.workspace.ptr(), 16,
                                        "the reduce reads FP32 partials 16 bytes at a time"));
  const TailTiles tail = TailOfArgs(spec, args);
  GPUOPS_RETURN_IF_ERROR(RequireExtent(
      spec.kernel, "workspace", args.workspace, ws,
      StrCat(splits, " splits of ", tail.tail_tiles, " tail tiles of ", spec.tile_m, " x ",
             spec.tile_n, " FP32 partials (WorkspaceBytes)")));
  return RequireGridFits(kTailReduceKernel, TailReduceDims(spec, tail).grid, gpu_->device_info(),
                         StrCat("m=", args.m, ", n=", args.n));
}

TailTiles DenseGemm::TailOfArgs(const VariantSpec& spec, const GemmArgs& args) const {
  const uint64_t tiles = TileCount(spec, args.m, args.n);
  const auto t = static_cast<uint32_t>(std::min<uint64_t>(tiles, UINT32_MAX));
  const uint32_t splits = Splits(spec.variant, args);
  return TailOf(t, TailGrid(t, splits, SmCount()), splits);
}

LaunchDims DenseGemm::TailReduceDims(const VariantSpec& spec, const TailTiles& tail) {
  return {{std::max(tail.tail_tiles, 1u), CeilDiv(spec.tile_m, kTailReduceRows), 1},
          {kTailReduceThreads, 1, 1},
          0};
}

absl::Status DenseGemm::CanImplementShifted(const VariantSpec& spec, const GemmArgs& args) const {
  if (args.k > kMaxShiftedK) {
    return ArgumentError(spec.kernel, StrCat("k=", args.k, " exceeds the copies' limit of ",
                                             kMaxShiftedK));
  }
  const uint64_t ws = WorkspaceBytes(spec.variant, args);
  if (args.workspace.is_null() || args.workspace.unchecked()) {
    return ArgumentError(spec.kernel, StrCat("needs a sized workspace of ", ws,
                                             " bytes for its copies of A (WorkspaceBytes)"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, "workspace", args.workspace.ptr(), 16,
                                        "the copies are read 16 bytes at a time"));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(
      spec.kernel, "workspace", args.workspace, ws,
      StrCat(ShiftTile::kCopies, " copies of A (m=", args.m, " x ", ShiftedRowElems(args.k),
             ") (WorkspaceBytes)")));
  return RequireGridFits(kShiftRowsKernel, ShiftDims(args.m, args.k).grid, gpu_->device_info(),
                         StrCat("m=", args.m, ", k=", args.k));
}

absl::StatusOr<GemmArgs> DenseGemm::PackedArgs(const GemmArgs& args) const {
  const PackedLayout l = LayoutPacked(args);
  const std::string_view kernel = kVariants[Variant::kPacked].kernel;
  if (args.workspace.is_null() || args.workspace.unchecked()) {
    return ArgumentError(kernel, StrCat("needs a sized workspace of ", l.total,
                                        " bytes for its copies (WorkspaceBytes)"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireAligned(kernel, "workspace", args.workspace.ptr(), 16,
                                        "the copies are read 16 bytes at a time"));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(kernel, "workspace", args.workspace, l.total,
                                       StrCat("copies of A (m=", args.m, " x ", l.k8,
                                              "), B (n=", args.n, " x ", l.k8, ")",
                                              l.copies_c ? " and C" : "", " (WorkspaceBytes)")));
  GemmArgs inner;
  GPUOPS_ASSIGN_OR_RETURN(inner.a, args.workspace.Slice(l.a, uint64_t{args.m} * l.k8 * 2));
  GPUOPS_ASSIGN_OR_RETURN(inner.b, args.workspace.Slice(l.b, uint64_t{args.n} * l.k8 * 2));
  if (l.copies_c) {
    GPUOPS_ASSIGN_OR_RETURN(inner.c, args.workspace.Slice(l.c, uint64_t{args.m} * args.n * 2));
  } else {
    inner.c = args.c;
  }
  inner.m = args.m;
  inner.n = args.n;
  inner.k = l.k8;
  return inner;
}

absl::Status DenseGemm::CanImplementPacked(const GemmArgs& args) const {
  const std::string_view kernel = kVariants[Variant::kPacked].kernel;
  const PackedLayout l = LayoutPacked(args);
  const DeviceInfo& device = gpu_->device_info();
  const uint32_t widest = std::max(l.k8, args.n);
  GPUOPS_RETURN_IF_ERROR(RequireGridFits(kernel, PackDims(std::max(args.m, args.n), widest).grid,
                                         device, StrCat("m=", args.m, ", n=", args.n)));
  GPUOPS_ASSIGN_OR_RETURN(const GemmArgs inner, PackedArgs(args));
  GPUOPS_ASSIGN_OR_RETURN(const Variant v, Pick(inner));
  if (v == Variant::kScalar) {
    return absl::FailedPreconditionError(
        StrCat(kernel, ": no 16-byte kernel ships for the copies (the dispatcher chose scalar)"));
  }
  return absl::OkStatus();
}

GemmExtents ExtentsOf(const GemmArgs& args) {
  const uint64_t ldb = args.ldb == 0 ? args.k : args.ldb;
  GemmExtents e;
  e.a = SaturatingMul(SaturatingMul(args.m, args.k), 2);
  e.b = args.n == 0 ? 0 : SaturatingMul(SaturatingAdd(SaturatingMul(args.n - 1, ldb), args.k), 2);
  e.c = SaturatingMul(SaturatingMul(args.m, args.n), 2);
  return e;
}

LaunchDims DenseGemm::Dims(const VariantSpec& spec, const GemmArgs& args) const {
  const DeviceInfo& device = gpu_->device_info();
  const uint32_t splits = spec.second_kernel.empty() ? 1 : Splits(spec.variant, args);
  Dim3 grid;
  if (spec.shape == ArgShape::kTmaTail) {
    const uint64_t tiles = TileCount(spec, args.m, args.n);
    grid = {TailGrid(static_cast<uint32_t>(std::min<uint64_t>(tiles, UINT32_MAX)), splits,
                     SmCount()),
            1, 1};
  } else if (spec.shape == ArgShape::kTmaRowClasses) {
    grid = PersistentGrid(ClassTileCount(spec, args), device);
  } else if (spec.order == GridOrder::kPersistent) {
    grid = PersistentGrid(TileCount(spec, args.m, args.n) * splits, device);
  } else if (spec.extra.row_classes) {
    grid = {RowClassBlocks(args.n), 1, 1};
  } else {
    grid = TileGrid(spec, args.m, args.n, splits);
  }
  if (!spec.extra.warps_per_wave) return {grid, spec.block, spec.shared_mem_bytes};
  const uint32_t warps = GemvWarps(grid.x, static_cast<uint32_t>(std::max(device.sm_count, 1)));
  return {grid, {32 * warps, 1, 1}, GemvSharedBytes(warps, CeilDiv(spec.max_m, 8))};
}

uint32_t DenseGemm::SplitsFor(Variant v, const GemmArgs& args) const {
  const VariantSpec* spec = kVariants.Find(v);
  if (spec == nullptr || spec->second_kernel.empty()) return 1;
  const uint64_t sms = std::max(gpu_->device_info().sm_count, 1);
  const uint64_t tiles = std::max<uint64_t>(1, TileCount(*spec, args.m, args.n));
  const uint64_t by_k = std::max<uint64_t>(1, args.k / 256);  // at least 256 k per split
  if (spec->shape == ArgShape::kTmaTail) {
    // The count the time model predicts fastest, each split kTailMinKBlocks k-blocks or more;
    // 1 (no split) unless the tiles pass one whole wave and the split saves kTailMinGain of the
    // tile's unsplit time. Measured on the H200 (bench/NOTES.md, session 21): where the tiles
    // do not fill one wave, the split-K variants ran 5-20 % faster than a tail split, and a
    // predicted gain of a percent or two was lost as often as won.
    if (tiles <= sms) return 1;
    // A tail variant the model has no row for yet (forced only) runs unsplit.
    const std::optional<double> unsplit =
        PredictMicros(v, args.m, args.n, args.k, 1, static_cast<uint32_t>(sms));
    if (!unsplit.has_value()) return 1;
    const uint32_t most =
        std::clamp(CeilDiv(args.k, WgmmaTile<128>::kK) / kTailMinKBlocks, 1u, kTailMaxSplits);
    uint32_t best = 1;
    double best_us = *unsplit * (1.0 - kTailMinGain);
    for (uint32_t s = 2; s <= most; ++s) {
      const std::optional<double> us =
          PredictMicros(v, args.m, args.n, args.k, s, static_cast<uint32_t>(sms));
      if (us.has_value() && *us < best_us) {
        best_us = *us;
        best = s;
      }
    }
    return best;
  }
  if (spec->shape == ArgShape::kTmaSplitK) {
    // One wave: tiles x splits <= SMs.
    return static_cast<uint32_t>(
        std::clamp<uint64_t>(std::min(sms / tiles, by_k), 1, kWgmmaMaxSplits));
  }
  const uint64_t want = CeilDiv64(2 * sms, tiles);
  return static_cast<uint32_t>(std::clamp<uint64_t>(std::min(want, by_k), 1, 16));
}

uint32_t DenseGemm::Splits(Variant v, const GemmArgs& args) const {
  return args.splits == 0 ? SplitsFor(v, args) : args.splits;
}

uint64_t DenseGemm::WorkspaceBytes(Variant v, const GemmArgs& args) const {
  if (v == Variant::kPacked) return LayoutPacked(args).total;
  const VariantSpec* spec = kVariants.Find(v);
  if (spec != nullptr &&
      (spec->shape == ArgShape::kShiftedA || spec->shape == ArgShape::kTmaRowClasses)) {
    return SaturatingMul(SaturatingMul(ShiftTile::kCopies, args.m),
                         SaturatingMul(ShiftedRowElems(std::min(args.k, kMaxShiftedK)), 2));
  }
  if (spec == nullptr || spec->second_kernel.empty()) return 0;
  if (spec->shape == ArgShape::kTmaTail) {
    const TailTiles tail = TailOfArgs(*spec, args);
    return SaturatingMul(SaturatingMul(tail.tail_tiles, Splits(v, args)),
                         SaturatingMul(uint64_t{spec->tile_m} * spec->tile_n, sizeof(float)));
  }
  return SaturatingMul(SaturatingMul(Splits(v, args), SaturatingMul(args.m, args.n)),
                       sizeof(float));
}

uint32_t DenseGemm::SmCount() const {
  return static_cast<uint32_t>(std::max(gpu_->device_info().sm_count, 1));
}

DenseGemm::ModeledOrder DenseGemm::ByPredictedTime(const GemmArgs& args,
                                                   uint64_t workspace_bytes) const {
  const uint32_t sms = SmCount();
  struct Candidate {
    Variant variant;
    double micros;
  };
  absl::InlinedVector<Candidate, kModeledVariants> candidates;
  for (const VariantSpec& spec : kVariants.rows()) {
    if (!Modeled(spec.variant) || !Ships(spec.variant)) continue;
    if (spec.max_m != 0 && args.m > spec.max_m) continue;
    uint32_t splits = 1;
    if (!spec.second_kernel.empty()) {
      // A split variant: two splits or more, past gemv_m8's rows (M > 8), into a workspace
      // that covers its partials.
      splits = Splits(spec.variant, args);
      if (args.m <= 8 || splits < 2 || WorkspaceBytes(spec.variant, args) > workspace_bytes) {
        continue;
      }
    }
    const std::optional<double> micros =
        PredictMicros(spec.variant, args.m, args.n, args.k, splits, sms);
    // else M off its fit; ranked by the prediction with the variant's margin (PickMargin)
    if (micros.has_value()) {
      candidates.push_back({spec.variant, *micros * (1.0 + PickMargin(spec.variant))});
    }
  }
  // Ties keep the variants table's order.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.micros < y.micros; });
  ModeledOrder order;
  for (const Candidate& c : candidates) order.push_back(c.variant);
  return order;
}

std::optional<Variant> DenseGemm::FastestClassTiles(const GemmArgs& args) const {
  std::optional<Variant> best;
  double best_us = 0.0;
  for (const auto& [classes, twin] : kClassTwins) {
    if (!Ships(classes)) continue;
    const VariantSpec& spec = kVariants[classes];
    // The twin's time on the columns the class tiles cover and the k-blocks of the widest shift.
    const uint32_t n_cover = ClassTiles::NBlocks(args.n, spec.tile_n) * spec.tile_n;
    const uint32_t k_cover = ClassTiles::KBlocks(args.k, 7, WgmmaTile<128>::kK) *
                             WgmmaTile<128>::kK;
    const std::optional<double> us = PredictMicros(twin, args.m, n_cover, k_cover, 1, SmCount());
    if (us.has_value() && (!best.has_value() || *us < best_us)) {
      best = classes;
      best_us = *us;
    }
  }
  return best;
}

absl::InlinedVector<Variant, 10> DenseGemm::AnyAlignmentOrder(const GemmArgs& args) const {
  // The gemv kernels for small M (the _shifted ones given a workspace), the _classes tiles for
  // M in [kClassesMinM, kClassesMaxM] (the fastest predicted first; below that range too, ahead
  // of the gemv, on weights of kClassesDecodeMinElems and more), packed (a workspace) above,
  // scalar last. Each runs where CanImplement accepts it (the gemv kernels up to their max_m
  // rows, the _classes tiles on sm_90a).
  absl::InlinedVector<Variant, 10> order;
  auto add_class_tiles = [&] {
    const std::optional<Variant> v = FastestClassTiles(args);
    if (v.has_value() && ClassTileCount(kVariants[*v], args) >= kClassesMinTiles) {
      order.push_back(*v);
    }
  };
  const bool big_weight = uint64_t{args.n} * args.k >= kClassesDecodeMinElems;
  if (kClassTilesDispatched && args.m < kClassesMinM && big_weight) add_class_tiles();
  order.insert(order.end(), {Variant::kGemvM8Unaligned, Variant::kGemvM16Unaligned});
  if (kClassTilesDispatched && args.m >= kClassesMinM && args.m <= kClassesMaxM) {
    add_class_tiles();
  }
  for (Variant v : {Variant::kGemvM32Shifted, Variant::kGemvM32Unaligned,
                    Variant::kGemvM64Shifted, Variant::kPacked, Variant::kScalar}) {
    order.push_back(v);
  }
  return order;
}

uint64_t DenseGemm::GemmWorkspaceBytes(const GemmArgs& args) const {
  if (!SixteenByteOperands(args)) {
    // The first variant of the order that takes M and ships: what Pick runs given that much.
    for (Variant v : AnyAlignmentOrder(args)) {
      const uint32_t max_m = kVariants[v].max_m;
      if ((max_m == 0 || args.m <= max_m) && Ships(v)) return WorkspaceBytes(v, args);
    }
    return 0;
  }
  if (args.splits != 0) return 0;
  const ModeledOrder order = ByPredictedTime(args, UINT64_MAX);
  return order.empty() ? 0 : WorkspaceBytes(order.front(), args);
}

absl::StatusOr<DenseGemm::TmaMaps> DenseGemm::EncodeTmaMaps(const VariantSpec& spec,
                                                            const GemmArgs& args) const {
  // Row-major [rows, K] operands as TMA sees them: dims (K, rows), box (kK, tile rows),
  // 128-byte swizzle (kK BF16 = 128 bytes).
  auto map = [&](DevicePtr base, uint32_t rows, uint32_t stride, uint32_t box_rows) {
    return gpu_->EncodeTensorMap(RowMajorSwizzled128(TensorMapDataType::kBF16, base, args.k, rows,
                                                     uint64_t{stride} * 2, WgmmaTile<256>::kK,
                                                     box_rows));
  };
  TmaMaps maps;
  GPUOPS_ASSIGN_OR_RETURN(maps.a, map(args.a.ptr(), args.m, args.k, ABoxRows(spec.tile_m, args.m)));
  GPUOPS_ASSIGN_OR_RETURN(maps.b, map(args.b.ptr(), args.n, EffectiveLdb(args), spec.tile_n));
  return maps;
}

absl::StatusOr<TmaRowClassArgs> DenseGemm::EncodeRowClassArgs(const VariantSpec& spec,
                                                              const GemmArgs& args) const {
  // Row-major operands as TMA sees them: dims (columns, rows), box (kK, tile rows), 128-byte
  // swizzle (kK BF16 = 128 bytes). A: the workspace's eight copies of A as one tensor of 8 M rows
  // (copy L's rows at L M); B: one tensor a row class (dense_row_class_maps.h).
  auto map = [&](uint64_t address, uint32_t cols, uint32_t rows, uint64_t stride_bytes,
                 uint32_t box_rows) {
    return gpu_->EncodeTensorMap(RowMajorSwizzled128(TensorMapDataType::kBF16, DevicePtr(address),
                                                     cols, rows, stride_bytes,
                                                     WgmmaTile<128>::kK, box_rows));
  };
  TmaRowClassArgs out{.c = args.c.ptr(), .m = args.m, .n = args.n, .k = args.k};
  const uint32_t a_ld = ShiftedRowElems(args.k);
  GPUOPS_ASSIGN_OR_RETURN(out.a_map, map(args.workspace.address(), a_ld, ShiftTile::kCopies * args.m,
                                         uint64_t{a_ld} * 2, ABoxRows(spec.tile_m, args.m)));
  const auto classes = RowClassesOf(args.b.address(), EffectiveLdb(args), args.n);
  TensorMapBytes* b_maps[ClassTiles::kClasses] = {&out.b_map0, &out.b_map1, &out.b_map2,
                                                  &out.b_map3, &out.b_map4, &out.b_map5,
                                                  &out.b_map6, &out.b_map7};
  for (uint32_t r = 0; r < ClassTiles::kClasses; ++r) {
    const RowClass& rc = classes[r];
    GPUOPS_ASSIGN_OR_RETURN(*b_maps[r], map(rc.address, args.k + rc.shift, rc.rows,
                                            rc.stride_bytes, spec.tile_n));
  }
  out.b_shifts = PackShifts(classes);
  return out;
}

void DenseGemm::AddShiftedCopiesOfA(GemmPlan& plan, const VariantSpec& spec,
                                    const GemmArgs& args) const {
  plan.launches.push_back(shift_rows_.Launch(*gpu_, ShiftDims(args.m, args.k),
                                             {.src = args.a.ptr(),
                                              .dst = args.workspace.ptr(),
                                              .rows = args.m,
                                              .cols = args.k,
                                              .src_ld = args.k,
                                              .dst_ld = ShiftedRowElems(args.k)}));
  plan.workspace_bytes = WorkspaceBytes(spec.variant, args);
}

template <typename Args>
absl::Status DenseGemm::AddLaunch(GemmPlan& plan, const VariantSpec& spec, const LaunchDims& dims,
                                  const Args& args) const {
  const TypedKernel<Args>* kernel = Bound<Args>(spec.variant);
  if (kernel == nullptr) {
    return absl::InternalError(
        StrCat(spec.kernel, ": bound to another argument list than ", Args::kName));
  }
  plan.launches.push_back(kernel->Launch(*gpu_, dims, args));
  return absl::OkStatus();
}

absl::StatusOr<GemmPlan> DenseGemm::PlanAccepted(Variant v, const GemmArgs& args) const {
  const VariantSpec& spec = kVariants[v];
  GemmPlan plan;
  plan.variant = spec.variant;
  plan.variant_name = spec.name;
  const LaunchDims dims = Dims(spec, args);
  const uint32_t m = args.m, n = args.n, k = args.k;
  switch (spec.shape) {
    case ArgShape::kMnk:
      GPUOPS_RETURN_IF_ERROR(AddLaunch(
          plan, spec, dims,
          MnkArgs{
              .a = args.a.ptr(), .b = args.b.ptr(), .c = args.c.ptr(), .m = m, .n = n, .k = k}));
      return plan;
    case ArgShape::kShiftedA:
    case ArgShape::kLdb: {
      DevicePtr a = args.a.ptr();
      if (spec.shape == ArgShape::kShiftedA) {
        // A's copies first, then the gemv reading them in A's place.
        AddShiftedCopiesOfA(plan, spec, args);
        a = args.workspace.ptr();
      }
      GPUOPS_RETURN_IF_ERROR(AddLaunch(plan, spec, dims,
                                       LdbArgs{.a = a,
                                               .b = args.b.ptr(),
                                               .c = args.c.ptr(),
                                               .m = m,
                                               .n = n,
                                               .k = k,
                                               .ldb = EffectiveLdb(args)}));
      return plan;
    }
    case ArgShape::kScaledAcc:
      GPUOPS_RETURN_IF_ERROR(AddLaunch(plan, spec, dims,
                                       ScaledAccArgs{.a = args.a.ptr(),
                                                     .b = args.b.ptr(),
                                                     .c = args.c.ptr(),
                                                     .m = m,
                                                     .n = n,
                                                     .k = k,
                                                     .scale = args.scale}));
      return plan;
    case ArgShape::kTma: {
      GPUOPS_ASSIGN_OR_RETURN(TmaMaps maps, EncodeTmaMaps(spec, args));
      GPUOPS_RETURN_IF_ERROR(AddLaunch(
          plan, spec, dims,
          TmaArgs{.a_map = maps.a, .b_map = maps.b, .c = args.c.ptr(), .m = m, .n = n, .k = k}));
      return plan;
    }
    case ArgShape::kPack: {
      const PackedLayout l = LayoutPacked(args);
      GPUOPS_ASSIGN_OR_RETURN(const GemmArgs inner, PackedArgs(args));
      GPUOPS_ASSIGN_OR_RETURN(const Variant inner_variant, Pick(inner));
      GPUOPS_ASSIGN_OR_RETURN(const GemmPlan inner_plan, PlanAccepted(inner_variant, inner));
      auto pack = [&](DevicePtr src, DevicePtr dst, uint32_t rows, uint32_t cols, uint32_t src_ld,
                      uint32_t dst_ld) {
        return AddLaunch(plan, spec, PackDims(rows, dst_ld),
                         PackArgs{.src = src,
                                  .dst = dst,
                                  .rows = rows,
                                  .cols = cols,
                                  .src_ld = src_ld,
                                  .dst_ld = dst_ld});
      };
      GPUOPS_RETURN_IF_ERROR(pack(args.a.ptr(), inner.a.ptr(), m, k, k, l.k8));
      GPUOPS_RETURN_IF_ERROR(pack(args.b.ptr(), inner.b.ptr(), n, k, EffectiveLdb(args), l.k8));
      plan.launches.insert(plan.launches.end(), inner_plan.launches.begin(),
                           inner_plan.launches.end());
      if (l.copies_c) GPUOPS_RETURN_IF_ERROR(pack(inner.c.ptr(), args.c.ptr(), m, n, n, n));
      plan.workspace_bytes = l.total;
      return plan;
    }
    case ArgShape::kTmaRowClasses: {
      // A's copies first, then the tiles reading them through A's map.
      AddShiftedCopiesOfA(plan, spec, args);
      GPUOPS_ASSIGN_OR_RETURN(const TmaRowClassArgs class_args, EncodeRowClassArgs(spec, args));
      GPUOPS_RETURN_IF_ERROR(AddLaunch(plan, spec, dims, class_args));
      return plan;
    }
    case ArgShape::kSplitK:
    case ArgShape::kTmaSplitK: {
      plan.splits = Splits(spec.variant, args);
      plan.workspace_bytes = WorkspaceBytes(spec.variant, args);
      if (spec.shape == ArgShape::kSplitK) {
        GPUOPS_RETURN_IF_ERROR(AddLaunch(plan, spec, dims,
                                         SplitKPartialArgs{.a = args.a.ptr(),
                                                           .b = args.b.ptr(),
                                                           .workspace = args.workspace.ptr(),
                                                           .m = m,
                                                           .n = n,
                                                           .k = k,
                                                           .splits = plan.splits}));
      } else {
        GPUOPS_ASSIGN_OR_RETURN(TmaMaps maps, EncodeTmaMaps(spec, args));
        GPUOPS_RETURN_IF_ERROR(AddLaunch(plan, spec, dims,
                                         TmaSplitKArgs{.a_map = maps.a,
                                                       .b_map = maps.b,
                                                       .workspace = args.workspace.ptr(),
                                                       .m = m,
                                                       .n = n,
                                                       .k = k,
                                                       .splits = plan.splits}));
      }
      // The reduce: one row per blockIdx.y, kReduceThreads columns per block. After the sm_90a
      // split kernels it overlaps their launch: the reduce's sm_90a code waits for them in the
      // kernel (griddepcontrol.wait) and they let it launch as they start.
      const LaunchDims reduce{
          {CeilDiv(n, SplitKTile::kReduceThreads), m, 1}, {SplitKTile::kReduceThreads, 1, 1}, 0};
      plan.launches.push_back(splitk_reduce_
                                  .Launch(*gpu_, reduce,
                                          {.workspace = args.workspace.ptr(),
                                           .c = args.c.ptr(),
                                           .m = m,
                                           .n = n,
                                           .splits = plan.splits})
                                  .overlap_previous(spec.shape == ArgShape::kTmaSplitK));
      return plan;
    }
    case ArgShape::kTmaTail: {
      plan.splits = Splits(spec.variant, args);
      plan.workspace_bytes = WorkspaceBytes(spec.variant, args);
      GPUOPS_ASSIGN_OR_RETURN(TmaMaps maps, EncodeTmaMaps(spec, args));
      GPUOPS_RETURN_IF_ERROR(AddLaunch(plan, spec, dims,
                                       TmaTailArgs{.a_map = maps.a,
                                                   .b_map = maps.b,
                                                   .c = args.c.ptr(),
                                                   .workspace = args.workspace.ptr(),
                                                   .m = m,
                                                   .n = n,
                                                   .k = k,
                                                   .splits = plan.splits}));
      // The reduce overlaps the tail kernel's launch (griddepcontrol, as split-K's); with no
      // tail tiles (whole waves) it has nothing to sum and is not launched.
      const TailTiles tail = TailOfArgs(spec, args);
      if (tail.tail_tiles == 0) return plan;
      plan.launches.push_back(tail_reduce_
                                  .Launch(*gpu_, TailReduceDims(spec, tail),
                                          {.workspace = args.workspace.ptr(),
                                           .c = args.c.ptr(),
                                           .m = m,
                                           .n = n,
                                           .splits = plan.splits,
                                           .first_tile = tail.dp_tiles,
                                           .tail_tiles = tail.tail_tiles,
                                           .tile_m = spec.tile_m,
                                           .tile_n = spec.tile_n})
                                  .overlap_previous(true));
      return plan;
    }
  }
  return absl::InternalError(StrCat(spec.kernel, ": unknown argument shape"));
}

absl::StatusOr<Variant> DenseGemm::Pick(const GemmArgs& args) const {
  // Operands the 16-byte kernels cannot read (an offset pointer, K or ldb not a multiple of 8)
  // go to the kernels that take any alignment (kAnyAlignmentOrder; the _shifted gemv and packed
  // given GemmWorkspaceBytes of workspace).
  const bool strided = EffectiveLdb(args) != args.k || args.n % 8 != 0;
  // gemv, tensor-core, the modeled wgmma variants, pipelined, tc_ldb and scalar: sized so that
  // the dispatcher never allocates.
  absl::InlinedVector<Variant, kModeledVariants + 7> order;
  if (!SixteenByteOperands(args) && args.splits == 0) {
    for (Variant v : AnyAlignmentOrder(args)) order.push_back(v);
  } else if (args.splits != 0) {
    // The split variants by their predicted time at the given split count, then splitk.
    const uint32_t sms = SmCount();
    std::array<std::pair<double, Variant>, 3> splits;
    size_t i = 0;
    for (Variant v : {Variant::kWgmma64x128SplitK, Variant::kWgmma128x128SplitK,
                      Variant::kWgmma128x256SplitK}) {
      splits[i++] = {*PredictMicros(v, args.m, args.n, args.k, args.splits, sms), v};
    }
    std::stable_sort(splits.begin(), splits.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [micros, v] : splits) order.push_back(v);
    order.push_back(Variant::kSplitK);
  } else {
    if (args.m <= 8) order.push_back(Variant::kGemvM8);
    // gemv_m16 (M <= 16), the wgmma tiles and the split variants by predicted time
    // (dense_time_model.h); a split variant only into a workspace whose size is known to cover
    // it.
    const uint64_t workspace = args.workspace.unchecked() ? 0 : args.workspace.bytes();
    for (Variant v : ByPredictedTime(args, workspace)) order.push_back(v);
    if (args.m <= 16) order.push_back(strided ? Variant::kTensorCoreLdb : Variant::kTensorCore);
    order.push_back(strided ? Variant::kPipelinedLdb : Variant::kPipelined);
    if (strided && args.m > 16) order.push_back(Variant::kTensorCoreLdb);
    order.push_back(Variant::kScalar);
  }
  absl::Status last = absl::FailedPreconditionError("dense: no variant");
  for (Variant v : order) {
    last = CanImplement(v, args);
    if (last.ok()) return v;
  }
  return absl::FailedPreconditionError(
      StrCat("dense: no variant can run m=", args.m, " n=", args.n, " k=", args.k,
             " ldb=", EffectiveLdb(args), args.splits != 0 ? StrCat(" splits=", args.splits) : "",
             " (last refusal: ", last.message(), ")"));
}

}  // namespace gpuops::ops::dense
