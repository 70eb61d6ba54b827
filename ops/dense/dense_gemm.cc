#include "ops/dense/dense_gemm.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "absl/container/inlined_vector.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "gpuops/runtime/tensor_map.h"

namespace gpuops::ops::dense {
namespace {

uint32_t EffectiveLdb(const GemmArgs& args) { return args.ldb == 0 ? args.k : args.ldb; }

absl::Status Invalid(const VariantSpec& spec, std::string what) {
  return absl::InvalidArgumentError(StrCat(spec.kernel, ": ", what));
}

}  // namespace

const VariantSpec& Spec(Variant v) { return kVariants[static_cast<size_t>(v)]; }

absl::StatusOr<Variant> ParseVariant(std::string_view name) {
  for (const VariantSpec& s : kVariants) {
    if (s.name == name) return s.variant;
  }
  return absl::NotFoundError(
      StrCat("dense: no variant '", name, "' (variants: ",
             StrJoin(kVariants, ", ",
                     [](std::string* out, const VariantSpec& s) { StrAppend(out, s.name); }),
             ")"));
}

std::string_view ToString(Accuracy a) {
  switch (a) {
    case Accuracy::kStrictOrder:
      return "bit-exact strict order";
    case Accuracy::kTensorCore:
      return "tensor-core bound";
    case Accuracy::kFusedScaledAdd:
      return "bit-identical to tc + scaled add";
  }
  return "?";
}

absl::StatusOr<DenseGemm> DenseGemm::Load(GpuBackend& gpu) {
  return Load(gpu, EmbeddedModuleImage());
}

absl::StatusOr<DenseGemm> DenseGemm::Load(GpuBackend& gpu, const ModuleImage& image) {
  static std::once_flag registered;
  std::call_once(registered, [] { RegisterHostKernels(GlobalHostKernels()); });
  DenseGemm d;
  d.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(d.module_, LoadedModule::Load(gpu, image));
  for (const VariantSpec& s : kVariants) {
    GPUOPS_ASSIGN_OR_RETURN(d.kernels_[static_cast<size_t>(s.variant)],
                            d.module_.KernelOrNull(s.kernel));
  }
  GPUOPS_ASSIGN_OR_RETURN(d.splitk_reduce_,
                          d.module_.KernelOrNull(Spec(Variant::kSplitK).reduce_kernel));
  return d;
}

bool DenseGemm::Ships(Variant v) const {
  if (kernel(v).is_null()) return false;
  return Spec(v).reduce_kernel.empty() || !splitk_reduce_.is_null();
}

absl::Status DenseGemm::CanImplement(Variant v, const GemmArgs& args) const {
  const VariantSpec& spec = Spec(v);
  if (!Ships(v)) {
    return absl::FailedPreconditionError(StrCat(spec.kernel, ": not shipped for ",
                                                gpu_->device_info().arch_name(), " by this build"));
  }
  if (args.m == 0 || args.n == 0 || args.k == 0) {
    return Invalid(spec, StrCat("empty problem m=", args.m, " n=", args.n, " k=", args.k));
  }
  if (args.a.is_null() || args.b.is_null() || args.c.is_null()) {
    return Invalid(spec, "a, b and c must be non-null");
  }
  if (spec.max_m != 0 && args.m > spec.max_m) {
    return Invalid(spec, StrCat("m=", args.m, " exceeds the kernel's ", spec.max_m, " rows"));
  }
  if (args.k % spec.k_multiple != 0) {
    return Invalid(spec, StrCat("k=", args.k, " is not a multiple of ", spec.k_multiple,
                                " (A and B rows are loaded 16 bytes at a time)"));
  }
  if (args.n % spec.n_multiple != 0) {
    return Invalid(spec, StrCat("n=", args.n, " is not a multiple of ", spec.n_multiple,
                                " (C rows are stored in aligned pairs); an _ldb variant takes "
                                "any N"));
  }
  const uint32_t ldb = EffectiveLdb(args);
  if (spec.shape == ArgShape::kGemmLdb || TakesTensorMaps(spec.shape)) {
    if (ldb < args.k || ldb % 8 != 0) {
      return Invalid(spec, StrCat("ldb=", ldb, " must be >= k=", args.k,
                                  " and a multiple of 8 (16-byte-aligned B rows)"));
    }
  } else if (ldb != args.k) {
    return Invalid(spec, StrCat("ldb=", ldb, " differs from k=", args.k,
                                "; only the _ldb variants take a B row stride"));
  }
  if (spec.k_multiple % 8 == 0) {
    for (const auto& [name, ptr] : {std::pair{"a", args.a}, {"b", args.b}, {"c", args.c}}) {
      if (ptr.address() % 16 != 0) {
        return Invalid(spec, StrCat(name, " at 0x", Hex(ptr.address()),
                                    " is not 16-byte aligned (16-byte loads)"));
      }
    }
  }
  const Dim3 grid = Grid(v, args);
  const DeviceInfo& device = gpu_->device_info();
  if (grid.x > device.max_grid.x || grid.y > device.max_grid.y) {
    return Invalid(spec, StrCat("m=", args.m, ", n=", args.n, " need a grid of ", ToString(grid),
                                ", over the device limit"));
  }
  if (!spec.reduce_kernel.empty()) {
    const uint32_t splits = Splits(v, args);
    // The wgmma kernel gives each split at least one k-block of WgmmaTile<128>::kK.
    constexpr uint32_t kBlockK = WgmmaTile<128>::kK;
    const uint32_t max_splits = v == Variant::kSplitK
                                    ? SplitKTile::kMaxSplits
                                    : std::min(SplitKTile::kMaxSplits, CeilDiv(args.k, kBlockK));
    if (splits < 1 || splits > max_splits) {
      return Invalid(spec, StrCat("splits=", splits, " is outside 1..", max_splits,
                                  v == Variant::kSplitK ? "" : " (at most one per 64 k)"));
    }
    if (args.m > device.max_grid.y) {
      return Invalid(spec, StrCat("m=", args.m, " exceeds the reduce grid's limit of ",
                                  device.max_grid.y, " rows"));
    }
    const uint64_t need = WorkspaceBytes(v, args);
    if (args.workspace.is_null()) {
      return Invalid(spec, StrCat("needs a workspace of ", need, " bytes (WorkspaceBytes)"));
    }
    if (args.workspace_bytes != 0 && args.workspace_bytes < need) {
      return Invalid(spec, StrCat("workspace_bytes=", args.workspace_bytes, " is less than the ",
                                  need, " bytes ", splits, " splits need (WorkspaceBytes)"));
    }
  }
  return absl::OkStatus();
}

Dim3 DenseGemm::Grid(Variant v, const GemmArgs& args) const {
  const VariantSpec& spec = Spec(v);
  if (spec.order == GridOrder::kPersistent) {
    const uint64_t sms = std::max(gpu_->device_info().sm_count, 1);
    uint64_t units = TileCount(spec, args.m, args.n);
    if (spec.shape == ArgShape::kSplitKTma) {
      units *= Splits(v, args);
    }
    return {static_cast<uint32_t>(std::min(units, sms)), 1, 1};
  }
  return TileGrid(spec, args.m, args.n);
}

LaunchDims DenseGemm::Dims(Variant v, const GemmArgs& args) const {
  const VariantSpec& spec = Spec(v);
  const Dim3 grid = Grid(v, args);
  if (!spec.warps_per_shape) return {grid, spec.block, spec.shared_mem_bytes};
  const uint32_t warps =
      GemvWarps(grid.x, static_cast<uint32_t>(std::max(gpu_->device_info().sm_count, 1)));
  return {grid,
          {32 * warps, 1, 1},
          GemvSharedBytes(warps, CeilDiv(spec.max_m, 8))};
}

uint32_t DenseGemm::SplitsFor(Variant v, const GemmArgs& args) const {
  const uint64_t sms = std::max(gpu_->device_info().sm_count, 1);
  const uint64_t tiles = std::max<uint64_t>(1, TileCount(Spec(v), args.m, args.n));
  const uint64_t by_k = std::max<uint64_t>(1, args.k / 256);  // at least 256 k per split
  if (v == Variant::kWgmma128x128SplitK) {
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
  if (Spec(v).reduce_kernel.empty()) return 0;
  const uint64_t splits = Splits(v, args);
  return splits * args.m * args.n * sizeof(float);
}

// Measured on the H200 (bench/NOTES.md, split-K): 4 splits of 32 tiles run 1.13x (K = 4096)
// to 1.63x (K = 14336) faster than the 32 tiles alone; 2 splits of 48 tiles ran slower, the
// FP32 partials and the reduce costing more than the idle SMs.
bool DenseGemm::WorthSplitting(const GemmArgs& args) const {
  return args.m > 16 && SplitsFor(Variant::kWgmma128x128SplitK, args) >= 4 &&
         Ships(Variant::kWgmma128x128SplitK);
}

uint64_t DenseGemm::GemmWorkspaceBytes(const GemmArgs& args) const {
  return WorthSplitting(args) ? WorkspaceBytes(Variant::kWgmma128x128SplitK, args) : 0;
}

absl::Status DenseGemm::Run(Variant v, const GemmArgs& args, StreamHandle stream) const {
  GPUOPS_RETURN_IF_ERROR(CanImplement(v, args));
  return Launch(v, args, stream);
}

absl::StatusOr<DenseGemm::TmaMaps> DenseGemm::EncodeTmaMaps(const VariantSpec& spec,
                                                             const GemmArgs& args) const {
  // Row-major [rows, K] operands as TMA sees them: dims (K, rows), box (kK, tile rows),
  // 128-byte swizzle (kK BF16 = 128 bytes).
  auto map = [&](DevicePtr base, uint32_t rows, uint32_t stride, uint32_t box_rows) {
    TensorMapDesc d;
    d.data_type = TensorMapDataType::kBF16;
    d.rank = 2;
    d.global_address = base;
    d.global_dims = {args.k, rows};
    d.global_strides = {0, uint64_t{stride} * 2};
    d.box_dims = {WgmmaTile<256>::kK, box_rows};
    d.swizzle = TensorMapSwizzle::k128B;
    return gpu_->EncodeTensorMap(d);
  };
  TmaMaps maps;
  GPUOPS_ASSIGN_OR_RETURN(maps.a, map(args.a, args.m, args.k, spec.tile_m));
  GPUOPS_ASSIGN_OR_RETURN(maps.b, map(args.b, args.n, EffectiveLdb(args), spec.tile_n));
  return maps;
}

absl::Status DenseGemm::Launch(Variant v, const GemmArgs& args, StreamHandle stream) const {
  const VariantSpec& spec = Spec(v);
  const KernelHandle kernel = kernels_[static_cast<size_t>(v)];
  const LaunchDims dims = Dims(v, args);
  switch (spec.shape) {
    case ArgShape::kGemm:
      return GemmDef(spec.kernel)
          .Launch(*gpu_, kernel, dims, stream, args.a, args.b, args.c, args.m, args.n, args.k);
    case ArgShape::kGemmLdb:
      return GemmLdbDef(spec.kernel)
          .Launch(*gpu_, kernel, dims, stream, args.a, args.b, args.c, args.m, args.n, args.k,
                  EffectiveLdb(args));
    case ArgShape::kGemmScaledAcc:
      return GemmScaledAccDef(spec.kernel)
          .Launch(*gpu_, kernel, dims, stream, args.a, args.b, args.c, args.m, args.n, args.k,
                  args.scale);
    case ArgShape::kGemmTma: {
      GPUOPS_ASSIGN_OR_RETURN(TmaMaps maps, EncodeTmaMaps(spec, args));
      return TmaGemmDef(spec.kernel)
          .Launch(*gpu_, kernel, dims, stream, maps.a, maps.b, args.c, args.m, args.n, args.k);
    }
    case ArgShape::kSplitK:
    case ArgShape::kSplitKTma: {
      const uint32_t splits = Splits(v, args);
      if (spec.shape == ArgShape::kSplitK) {
        GPUOPS_RETURN_IF_ERROR(
            SplitKPartialDef(spec.kernel)
                .Launch(*gpu_, kernel, {TileGrid(spec, args.m, args.n, splits), spec.block, 0},
                        stream, args.a, args.b, args.workspace, args.m, args.n, args.k, splits));
      } else {
        GPUOPS_ASSIGN_OR_RETURN(TmaMaps maps, EncodeTmaMaps(spec, args));
        GPUOPS_RETURN_IF_ERROR(TmaSplitKPartialDef(spec.kernel)
                                   .Launch(*gpu_, kernel, dims, stream, maps.a, maps.b,
                                           args.workspace, args.m, args.n, args.k, splits));
      }
      const LaunchDims reduce{{CeilDiv(args.n, SplitKTile::kReduceThreads), args.m, 1},
                              {SplitKTile::kReduceThreads, 1, 1},
                              0};
      return SplitKReduceDef(spec.reduce_kernel)
          .Launch(*gpu_, splitk_reduce_, reduce, stream, args.workspace, args.c, args.m, args.n,
                  splits);
    }
  }
  return absl::InternalError("dense: unknown argument shape");
}

absl::StatusOr<Variant> DenseGemm::Pick(const GemmArgs& args) const {
  const bool strided = EffectiveLdb(args) != args.k || args.n % 8 != 0;
  absl::InlinedVector<Variant, 10> order;
  if (args.m <= 8) order.push_back(Variant::kGemvM8);
  if (args.m <= 16) {
    order.push_back(Variant::kGemvM16);
    order.push_back(strided ? Variant::kTensorCoreLdb : Variant::kTensorCore);
  }
  // Wgmma tiles: 128 x 128 when the 128 x 256 grid would leave more of its last wave idle than
  // the narrower tiles cost (they run at about 0.55 of the wide tile's time).
  const double sms = std::max(gpu_->device_info().sm_count, 1);
  const double wide_waves =
      std::ceil(TileCount(Spec(Variant::kWgmma128x256), args.m, args.n) / sms);
  const double narrow_waves =
      std::ceil(TileCount(Spec(Variant::kWgmma128x128), args.m, args.n) / sms) * 0.55;
  if (WorthSplitting(args) &&
      args.workspace_bytes >= WorkspaceBytes(Variant::kWgmma128x128SplitK, args)) {
    order.push_back(Variant::kWgmma128x128SplitK);
  }
  if (narrow_waves < wide_waves) {
    order.insert(order.end(), {Variant::kWgmma128x128, Variant::kWgmma128x256});
  } else {
    order.insert(order.end(), {Variant::kWgmma128x256, Variant::kWgmma128x128});
  }
  order.push_back(strided ? Variant::kPipelinedLdb : Variant::kPipelined);
  if (strided) order.push_back(Variant::kTensorCoreLdb);
  order.push_back(Variant::kScalar);
  absl::Status last = absl::FailedPreconditionError("dense: no variant");
  for (Variant v : order) {
    last = CanImplement(v, args);
    if (last.ok()) return v;
  }
  return absl::FailedPreconditionError(StrCat("dense: no variant can run m=", args.m, " n=", args.n,
                                              " k=", args.k, " ldb=", EffectiveLdb(args),
                                              " (last refusal: ", last.message(), ")"));
}

absl::Status DenseGemm::Gemm(const GemmArgs& args, StreamHandle stream) const {
  GPUOPS_ASSIGN_OR_RETURN(Variant v, Pick(args));  // Pick ran CanImplement for v
  return Launch(v, args, stream);
}

}  // namespace gpuops::ops::dense
