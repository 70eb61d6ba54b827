#include "ops/nvfp4/nvfp4_gemm.h"

#include <cmath>

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::ops::nvfp4 {
namespace {

uint32_t EffectiveLdb(const Nvfp4DeviceWeight& w) { return w.ldb == 0 ? w.n : w.ldb; }

}  // namespace

absl::StatusOr<UploadedWeight> UploadWeight(GpuBackend& gpu, const Nvfp4PreparedWeight& w) {
  GPUOPS_RETURN_IF_ERROR(Validate(w));
  UploadedWeight out;
  GPUOPS_ASSIGN_OR_RETURN(out.packed_, DeviceBuffer::FromHost<uint8_t>(gpu, w.packed));
  GPUOPS_ASSIGN_OR_RETURN(out.scales_, DeviceBuffer::FromHost<uint8_t>(gpu, w.scales));
  out.global_scale_ = w.global_scale;
  out.n_ = w.n;
  out.k_ = w.k;
  out.ldb_ = w.ldb;
  return out;
}

GemmExtents ExtentsOf(const GemmArgs& args) {
  const uint64_t ldb = EffectiveLdb(args.w);
  const uint64_t k = args.w.k;
  return {.a = SaturatingMul(SaturatingMul(args.m, k), 2),
          .packed = SaturatingMul(k, ldb / 2 + ldb % 2),
          .scales = SaturatingMul(k / 16, ldb),
          .c = SaturatingMul(SaturatingMul(args.m, args.w.n), 2)};
}

absl::StatusOr<Nvfp4Gemm> Nvfp4Gemm::Load(GpuBackend& gpu) {
  return Load(gpu, EmbeddedModuleImage());
}

absl::StatusOr<Nvfp4Gemm> Nvfp4Gemm::Load(GpuBackend& gpu, const ModuleImage& image) {
  Nvfp4Gemm g;
  g.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(g.module_, LoadFamilyModule(gpu, image, &RegisterHostKernels));
  GPUOPS_ASSIGN_OR_RETURN(g.kernels_, decltype(g.kernels_)::Bind(g.module_));
  return g;
}

KernelHandle Nvfp4Gemm::kernel(Variant v) const { return kernels_.handle(v); }

bool Nvfp4Gemm::Ships(Variant v) const { return kernels_.Ships(v); }

uint64_t Nvfp4Gemm::WorkspaceBytes(Variant, const GemmArgs&) const { return 0; }

absl::Status Nvfp4Gemm::CanImplement(Variant v, const GemmArgs& args) const {
  GPUOPS_RETURN_IF_ERROR(CanImplementShape(v, args));
  const GemmExtents need = ExtentsOf(args);
  return RequireDisjoint(kVariants[v].kernel, {OperandBytesOf("c", args.c, 1, need.c, need.c)},
                         {OperandBytesOf("a", args.a, 1, need.a, need.a),
                          OperandBytesOf("w.packed", args.w.packed, 1, need.packed, need.packed),
                          OperandBytesOf("w.scales", args.w.scales, 1, need.scales, need.scales)});
}

absl::Status Nvfp4Gemm::CanImplementShape(Variant v, const GemmArgs& args) const {
  GPUOPS_ASSIGN_OR_RETURN(const VariantSpec* found, kVariants.Get(v));
  const VariantSpec& spec = *found;
  const DeviceInfo& device = gpu_->device_info();
  if (!Ships(v)) return NotShipped(spec.kernel, device);
  const Nvfp4DeviceWeight& w = args.w;
  if (args.m == 0 || w.n == 0 || w.k == 0) {
    return ArgumentError(spec.kernel, StrCat("empty problem m=", args.m, " n=", w.n, " k=", w.k));
  }
  if (args.a.is_null() || args.c.is_null() || w.packed.is_null() || w.scales.is_null()) {
    return ArgumentError(spec.kernel, "a, c and the weight's packed values and scales must be "
                                      "non-null");
  }
  GPUOPS_RETURN_IF_ERROR(
      RequireMultiple(spec.kernel, "k", w.k, spec.k_multiple, "one E4M3 scale covers 16 k"));
  if (!std::isfinite(w.global_scale)) {
    return ArgumentError(spec.kernel,
                         StrCat("the weight's global scale ", w.global_scale, " is not finite"));
  }
  const uint32_t ldb = EffectiveLdb(w);
  if (!spec.extra.takes_padded && ldb != w.n) {
    return ArgumentError(spec.kernel, StrCat("ldb=", ldb, " differs from n=", w.n,
                                             ": only n128_ldb and m128_bf16_ldb read a padded "
                                             "weight"));
  }
  if (ldb < w.n || ldb % 32 != 0) {
    return ArgumentError(
        spec.kernel,
        StrCat(spec.extra.takes_padded ? StrCat("ldb=", ldb) : StrCat("n=", w.n),
               spec.extra.takes_padded ? StrCat(" must be >= n=", w.n, " and") : "",
               " is not a multiple of 32: the weight's k-rows (", ldb,
               " / 2 bytes) would not all start 16-byte aligned and the kernel's 16-byte loads "
               "would fault (CUDA_ERROR_MISALIGNED_ADDRESS); prepare the weight padded "
               "(Prepare's default ldb) and run an _ldb variant"));
  }
  for (const auto& [name, span] : {std::pair{"a", args.a}, {"w.packed", w.packed},
                                   {"w.scales", w.scales}}) {
    GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, name, span.ptr(), 16, "16-byte loads"));
  }
  GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, "c", args.c.ptr(), 2, "BF16 stores"));
  const GemmExtents need = ExtentsOf(args);
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "a", args.a, need.a,
                                       StrCat("m=", args.m, " rows of k=", w.k, " BF16")));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "w.packed", w.packed, need.packed,
                                       StrCat("k=", w.k, " rows of ldb=", ldb, " FP4 values")));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "w.scales", w.scales, need.scales,
                                       StrCat("k/16=", w.k / 16, " rows of ldb=", ldb,
                                              " E4M3 scales")));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "c", args.c, need.c,
                                       StrCat("m=", args.m, " rows of n=", w.n, " BF16")));
  return RequireGridFits(spec.kernel, Dims(spec, args).grid, device,
                         StrCat("m=", args.m, ", n=", w.n));
}

LaunchDims Nvfp4Gemm::Dims(const VariantSpec& spec, const GemmArgs& args) const {
  return {TileGrid(spec, args.m, args.w.n), spec.block, spec.shared_mem_bytes};
}

absl::StatusOr<GemmPlan> Nvfp4Gemm::PlanAccepted(Variant v, const GemmArgs& args) const {
  const VariantSpec& spec = kVariants[v];
  GemmPlan plan;
  plan.variant = spec.variant;
  plan.variant_name = spec.name;
  const LaunchDims dims = Dims(spec, args);
  const Nvfp4Args list{.a = args.a.ptr(),
                       .b_packed = args.w.packed.ptr(),
                       .b_scale = args.w.scales.ptr(),
                       .scale2 = args.w.global_scale,
                       .c = args.c.ptr(),
                       .m = args.m,
                       .n = args.w.n,
                       .k = args.w.k};
  if (const auto* kernel = kernels_.Get<Nvfp4Args>(v)) {
    plan.launches.push_back(kernel->Launch(*gpu_, dims, list));
    return plan;
  }
  if (const auto* kernel = kernels_.Get<Nvfp4LdbArgs>(v)) {
    plan.launches.push_back(kernel->Launch(*gpu_, dims,
                                           {.a = list.a,
                                            .b_packed = list.b_packed,
                                            .b_scale = list.b_scale,
                                            .scale2 = list.scale2,
                                            .c = list.c,
                                            .m = list.m,
                                            .n = list.n,
                                            .k = list.k,
                                            .ldb = EffectiveLdb(args.w)}));
    return plan;
  }
  return absl::InternalError(StrCat(spec.kernel, ": bound to no argument list"));
}

absl::StatusOr<Variant> Nvfp4Gemm::Pick(const GemmArgs& args) const {
  absl::InlinedVector<Variant, 4> order;
  if (EffectiveLdb(args.w) != args.w.n) {
    if (args.m <= 64) {
      order = {Variant::kN128Ldb, Variant::kM128Bf16Ldb};
    } else {
      order = {Variant::kM128Bf16Ldb, Variant::kN128Ldb};
    }
  } else if (args.m > 64 && TileCount(kVariants[Variant::kM128Bf16], args.m, args.w.n) >=
                                static_cast<uint64_t>(std::max(gpu_->device_info().sm_count, 1))) {
    order = {Variant::kM128Bf16, Variant::kDeepK, Variant::kBase};
  } else {
    order = {Variant::kDeepK, Variant::kBase, Variant::kN128};
  }
  absl::Status last = absl::FailedPreconditionError("nvfp4: no variant");
  for (Variant v : order) {
    last = CanImplement(v, args);
    if (last.ok()) return v;
  }
  return absl::FailedPreconditionError(StrCat("nvfp4: no variant can run m=", args.m,
                                              " n=", args.w.n, " k=", args.w.k,
                                              " ldb=", EffectiveLdb(args.w),
                                              " (last refusal: ", last.message(), ")"));
}

}  // namespace gpuops::ops::nvfp4
