#include "ops/fp8/fp8_gemm.h"

#include <algorithm>
#include <optional>

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::ops::fp8 {
uint64_t PitchedElements(uint32_t rows, uint32_t cols, uint32_t pitch) {
  return rows == 0 ? 0 : SaturatingAdd(SaturatingMul(rows - 1, pitch), cols);
}

absl::StatusOr<UploadedWeight> UploadWeight(GpuBackend& gpu, const Fp8BlockWeight& w) {
  GPUOPS_RETURN_IF_ERROR(Validate(w));
  UploadedWeight out;
  GPUOPS_ASSIGN_OR_RETURN(out.weight_, DeviceBuffer::FromHost<uint8_t>(gpu, w.weight));
  GPUOPS_ASSIGN_OR_RETURN(out.scales_, DeviceBuffer::FromHost<float>(gpu, w.block_scale));
  out.n_ = w.n;
  out.k_ = w.k;
  return out;
}

GemmExtents ExtentsOf(const GemmArgs& args) {
  const uint32_t n = args.w.n, k = args.w.k;
  return {.a = SaturatingMul(PitchedElements(args.m, k, args.a_pitch()), 2),
          .weight = SaturatingMul(n, k),
          .block_scale = SaturatingMul(SaturatingMul(ScaleRows(n), k / kBlock), 4),
          .c = SaturatingMul(PitchedElements(args.m, n, args.c_pitch()), 2)};
}

absl::StatusOr<Fp8Gemm> Fp8Gemm::Load(GpuBackend& gpu) { return Load(gpu, EmbeddedModuleImage()); }

absl::StatusOr<Fp8Gemm> Fp8Gemm::Load(GpuBackend& gpu, const ModuleImage& image) {
  Fp8Gemm g;
  g.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(g.module_, LoadFamilyModule(gpu, image, &RegisterHostKernels));
  GPUOPS_ASSIGN_OR_RETURN(g.kernels_, decltype(g.kernels_)::Bind(g.module_));
  return g;
}

KernelHandle Fp8Gemm::kernel(Variant v) const { return kernels_.handle(v); }

bool Fp8Gemm::Ships(Variant v) const { return kernels_.Ships(v); }

std::optional<StreamKWorkspace> Fp8Gemm::StreamKLayout(Variant v, const GemmArgs& args) const {
  const VariantSpec* spec = kVariants.Find(v);
  if (spec == nullptr || spec->shape != ArgShape::kStreamK) return std::nullopt;
  return StreamKLayoutOf(*spec, Dims(*spec, args.m, args.w.n, args.w.k).grid.x);
}

uint64_t Fp8Gemm::WorkspaceBytes(Variant v, const GemmArgs& args) const {
  const std::optional<StreamKWorkspace> layout = StreamKLayout(v, args);
  return layout ? layout->bytes() : 0;
}

uint64_t Fp8Gemm::WorkspaceFlags(Variant v, const GemmArgs& args) const {
  const std::optional<StreamKWorkspace> layout = StreamKLayout(v, args);
  return layout ? uint64_t{layout->grid} * layout->consumers : 0;
}

bool DispatchesToWgmma(uint32_t m, uint32_t n, uint32_t k) {
  if (m > 16) return m <= 64;
  return m > 8 && uint64_t{n} * k >= kWgmmaDecodeWeights;
}

uint64_t Fp8Gemm::GemmWorkspaceBytes(const GemmArgs& args) const {
  if (args.m > 64) {
    return Ships(Variant::kWgM128StreamK) &&
                   PrefillStreamKFirst(args.m, args.w.n, args.w.k, Sms())
               ? WorkspaceBytes(Variant::kWgM128StreamK, args)
               : 0;
  }
  if (!DispatchesToWgmma(args.m, args.w.n, args.w.k)) return 0;
  const Variant v = args.m > 32 ? Variant::kWgM64StreamK : Variant::kWgM32StreamK;
  return Ships(v) ? WorkspaceBytes(v, args) : 0;
}

absl::Status Fp8Gemm::CanImplement(Variant v, const GemmArgs& args) const {
  GPUOPS_RETURN_IF_ERROR(CanImplementShape(v, args));
  const uint64_t n = args.w.n, k = args.w.k, ws = WorkspaceBytes(v, args);
  const GemmExtents need = ExtentsOf(args);
  return RequireDisjoint(
      kVariants[v].kernel,
      {OperandBytesOf("c", args.c, args.m, n * 2, uint64_t{args.c_pitch()} * 2),
       OperandBytesOf("workspace", args.workspace, ws > 0 ? 1 : 0, ws, ws)},
      {OperandBytesOf("a", args.a, args.m, k * 2, uint64_t{args.a_pitch()} * 2),
       OperandBytesOf("w.weight", args.w.weight, 1, need.weight, need.weight),
       OperandBytesOf("w.block_scale", args.w.block_scale, 1, need.block_scale,
                      need.block_scale)});
}

absl::Status Fp8Gemm::CanImplementShape(Variant v, const GemmArgs& args) const {
  GPUOPS_ASSIGN_OR_RETURN(const VariantSpec* found, kVariants.Get(v));
  const VariantSpec& spec = *found;
  const DeviceInfo& device = gpu_->device_info();
  if (!Ships(v)) return NotShipped(spec.kernel, device);
  const uint32_t m = args.m, n = args.w.n, k = args.w.k;
  if (m == 0 || n == 0 || k == 0) {
    return ArgumentError(spec.kernel, StrCat("empty problem m=", m, " n=", n, " k=", k));
  }
  if (spec.max_m != 0 && m > spec.max_m && !spec.extra.row_slabs) {
    return ArgumentError(spec.kernel, StrCat("m=", m, " outside 1..", spec.max_m,
                                             " (the kernel's M tile: rows past it would be "
                                             "left unwritten)"));
  }
  if (spec.max_m == 0 && (m > uint32_t{INT32_MAX} || TileCount(spec, m, n) > UINT32_MAX)) {
    return ArgumentError(spec.kernel,
                         StrCat("m=", m, " x n=", n, ": the kernel walks its ", spec.tile_m, " x ",
                                spec.tile_n, " tiles by a 32-bit index and reads rows at 31-bit "
                                "TMA coordinates"));
  }
  GPUOPS_RETURN_IF_ERROR(
      RequireMultiple(spec.kernel, "k", k, spec.k_multiple, "block-scale granularity"));
  if (spec.extra.stages_f16_rows && !TcM8F16Tile::StagesFit(m, k)) {
    return ArgumentError(
        spec.kernel,
        StrCat("m=", m, " rows of k=", k, " need ", TcM8F16Tile::StagedPerWarp(m, k),
               " staged F16 elements a warp (", TcM8F16Tile::kWarps, " warps split k), more than its ",
               TcM8F16Tile::kStagedPerWarp));
  }
  if (args.a.is_null() || args.c.is_null() || args.w.weight.is_null() ||
      args.w.block_scale.is_null()) {
    return ArgumentError(spec.kernel, "a, c, the weight and its block_scale must be non-null");
  }
  const uint32_t lda = args.a_pitch(), ldc = args.c_pitch();
  if (spec.shape == ArgShape::kContiguous && (lda != k || ldc != n)) {
    return ArgumentError(
        spec.kernel,
        StrCat("row pitches (a=", lda, ", c=", ldc, ") differ from k=", k, " and n=", n,
               ": this kernel takes contiguous rows; run a "
               "strided variant (m16_strided, m16_w8, m64, gemv_strided)"));
  }
  if (lda < k || ldc < n) {
    return ArgumentError(spec.kernel,
                         StrCat("row pitches (a=", lda, ", c=", ldc,
                                ") must cover the used extents (k=", k, ", n=", n, ")"));
  }
  if (spec.extra.stages_a) {
    GPUOPS_RETURN_IF_ERROR(RequireMultiple(spec.kernel, "a_row_stride", lda, 8,
                                           "rows stay 16-byte aligned: cp.async (or TMA) stages "
                                           "A in 16-byte chunks"));
  }
  GPUOPS_RETURN_IF_ERROR(
      RequireAligned(spec.kernel, "a", args.a.ptr(), spec.extra.stages_a ? 16 : 2,
                     spec.extra.stages_a ? "16-byte cp.async or TMA" : "BF16 loads"));
  GPUOPS_RETURN_IF_ERROR(
      RequireAligned(spec.kernel, "w.weight", args.w.weight.ptr(), 16, "16-byte loads"));
  GPUOPS_RETURN_IF_ERROR(
      RequireAligned(spec.kernel, "w.block_scale", args.w.block_scale.ptr(), 4, "FP32 loads"));
  GPUOPS_RETURN_IF_ERROR(RequireAligned(spec.kernel, "c", args.c.ptr(), 2, "BF16 stores"));
  const GemmExtents need = ExtentsOf(args);
  GPUOPS_RETURN_IF_ERROR(
      RequireExtent(spec.kernel, "a", args.a, need.a,
                    StrCat("m=", m, " rows of k=", k, " BF16, ", lda, " apart")));
  GPUOPS_RETURN_IF_ERROR(RequireExtent(spec.kernel, "w.weight", args.w.weight, need.weight,
                                       StrCat("n=", n, " rows of k=", k, " E4M3")));
  GPUOPS_RETURN_IF_ERROR(
      RequireExtent(spec.kernel, "w.block_scale", args.w.block_scale, need.block_scale,
                    StrCat("ceil(n/128)=", ScaleRows(n), " rows of k/128=", k / kBlock,
                           " FP32 scales: the scale tensor must cover n=", n)));
  GPUOPS_RETURN_IF_ERROR(
      RequireExtent(spec.kernel, "c", args.c, need.c,
                    StrCat("m=", m, " rows of n=", n, " BF16, ", ldc, " apart")));
  const Dim3 grid = Dims(spec, m, n, k).grid;
  if (spec.shape == ArgShape::kStreamK) {
    const uint64_t ws = StreamKLayoutOf(spec, grid.x).bytes();
    if (args.workspace.is_null()) {
      return ArgumentError(spec.kernel, StrCat("workspace is null; it needs ", ws,
                                               " zero-filled bytes (WorkspaceBytes)"));
    }
    GPUOPS_RETURN_IF_ERROR(
        RequireAligned(spec.kernel, "workspace", args.workspace.ptr(), 16, "16-byte stores"));
    GPUOPS_RETURN_IF_ERROR(
        RequireExtent(spec.kernel, "workspace", args.workspace, ws,
                      StrCat("the flags and FP32 partials of its ", grid.x, " blocks")));
  }
  return RequireGridFits(spec.kernel, grid, device, StrCat("n=", n));
}

uint64_t Fp8Gemm::Sms() const {
  return static_cast<uint64_t>(std::max(gpu_->device_info().sm_count, 1));
}

LaunchDims Fp8Gemm::Dims(const VariantSpec& spec, uint32_t m, uint32_t n, uint32_t k) const {
  // Persistent blocks walk tiles (wg_m128's over M too), or (stream-K) share the tiles' 128-k
  // blocks: at most one block a unit of work. A launch covers LaunchRows of the m rows, at most
  // one M tile but for wg_m128.
  const uint32_t rows = std::max(LaunchRows(spec, m), 1u);
  const uint64_t units =
      SaturatingMul(TileCount(spec, rows, n), spec.shape == ArgShape::kStreamK ? k / kBlock : 1);
  const Dim3 grid = spec.order == GridOrder::kPersistent
                        ? PersistentGrid(units, gpu_->device_info(), spec.extra.blocks_per_sm)
                        : TileGrid(spec, rows, n);
  if (spec.extra.cluster > 1) {  // a cluster of blocks a tile
    return {{grid.x * spec.extra.cluster, grid.y, grid.z}, spec.block, spec.shared_mem_bytes};
  }
  return {grid, spec.block, spec.shared_mem_bytes};
}

absl::StatusOr<GemmPlan> Fp8Gemm::PlanAccepted(Variant v, const GemmArgs& args) const {
  const VariantSpec& spec = kVariants[v];
  GemmPlan plan;
  plan.variant = spec.variant;
  plan.variant_name = spec.name;
  plan.workspace_bytes = WorkspaceBytes(v, args);
  const LaunchDims dims = Dims(spec, args.m, args.w.n, args.w.k);
  const uint32_t lda = args.a_pitch(), ldc = args.c_pitch();
  std::optional<TensorMapBytes> weight_map;
  if (spec.shape == ArgShape::kTma || spec.shape == ArgShape::kWgmma ||
      spec.shape == ArgShape::kStreamK) {
    // [N, K] bytes as TMA sees them: dims (K, N), box (128 k, one tile's rows), 128-byte swizzle.
    GPUOPS_ASSIGN_OR_RETURN(weight_map, gpu_->EncodeTensorMap(RowMajorSwizzled128(
                                            TensorMapDataType::kU8, args.w.weight.ptr(), args.w.k,
                                            args.w.n, args.w.k, kBlock, spec.tile_n)));
  }
  // One launch per LaunchRows rows (a single one unless the variant runs slabs).
  const uint32_t launch_rows = LaunchRows(spec, args.m);
  for (uint64_t row0 = 0; row0 < args.m; row0 += launch_rows) {
    const Fp8StridedArgs list{.input = args.a.ptr().offset(row0 * lda * 2),
                              .weight = args.w.weight.ptr(),
                              .block_scale = args.w.block_scale.ptr(),
                              .output = args.c.ptr().offset(row0 * ldc * 2),
                              .m = static_cast<uint32_t>(
                                  std::min<uint64_t>(launch_rows, args.m - row0)),
                              .n = args.w.n,
                              .k = args.w.k,
                              .a_row_stride = lda,
                              .c_row_stride = ldc};
    // The TMA lists: the strided list with the weight as its tensor map; the wgmma kernels' the
    // activations' too (and, for stream-K, the workspace).
    auto tma_list = [&](auto tma) -> absl::StatusOr<decltype(tma)> {
      if constexpr (requires { tma.input_map; }) {
        // This launch's [m, k] BF16 rows lda apart as TMA sees them: dims (k, m), box (64 k:
        // one 128-byte swizzle span, its m rows up to the kernel's M tile: a box reaching past m
        // would be zero-filled, which costs the TMA unit time), 128-byte swizzle.
        GPUOPS_ASSIGN_OR_RETURN(
            tma.input_map,
            gpu_->EncodeTensorMap(RowMajorSwizzled128(TensorMapDataType::kBF16, list.input,
                                                      args.w.k, list.m, uint64_t{lda} * 2, 64,
                                                      std::min(spec.tile_m, list.m))));
      }
      tma.weight_map = *weight_map;
      tma.input = list.input;
      tma.block_scale = list.block_scale;
      tma.output = list.output;
      tma.m = list.m;
      tma.n = list.n;
      tma.k = list.k;
      tma.a_row_stride = lda;
      tma.c_row_stride = ldc;
      return tma;
    };
    if (const auto* streamk = kernels_.Get<Fp8StreamKArgs>(v); streamk != nullptr && weight_map) {
      GPUOPS_ASSIGN_OR_RETURN(Fp8StreamKArgs a, tma_list(Fp8StreamKArgs{}));
      a.workspace = args.workspace.ptr();
      plan.launches.push_back(streamk->Launch(*gpu_, dims, a));
    } else if (const auto* wgmma = kernels_.Get<Fp8WgmmaArgs>(v); wgmma != nullptr && weight_map) {
      GPUOPS_ASSIGN_OR_RETURN(const Fp8WgmmaArgs a, tma_list(Fp8WgmmaArgs{}));
      plan.launches.push_back(wgmma->Launch(*gpu_, dims, a));
    } else if (const auto* tma = kernels_.Get<Fp8TmaArgs>(v); tma != nullptr && weight_map) {
      GPUOPS_ASSIGN_OR_RETURN(const Fp8TmaArgs a, tma_list(Fp8TmaArgs{}));
      plan.launches.push_back(tma->Launch(*gpu_, dims, a));
    } else if (const auto* kernel = kernels_.Get<Fp8StridedArgs>(v)) {
      plan.launches.push_back(kernel->Launch(*gpu_, dims, list));
    } else if (const auto* contiguous = kernels_.Get<Fp8Args>(v)) {
      plan.launches.push_back(contiguous->Launch(*gpu_, dims,
                                                 {.input = list.input,
                                                  .weight = list.weight,
                                                  .block_scale = list.block_scale,
                                                  .output = list.output,
                                                  .m = list.m,
                                                  .n = list.n,
                                                  .k = list.k}));
    } else {
      return absl::InternalError(StrCat(spec.kernel, ": bound to no argument list"));
    }
  }
  if (args.weight_settled && spec.extra.overlaps_previous) {
    for (KernelLaunch& launch : plan.launches) launch.overlap_previous();
  }
  return plan;
}

bool StreamKFirst(uint32_t m, uint32_t n, uint32_t k, uint64_t sms) {
  // Estimated ns, least-squares fits to forced runs of both on the H200 (bench/NOTES.md session
  // 12, 12 and 16 shapes; within ~10 %): the n64 split kernel costs a + b u for u 64-row 128-k
  // units on its busiest SM (b lower with two blocks an SM than one); stream-K a' + b' u' for the
  // 8 KB units an SM gets, its a' higher (partials, more pieces a tile on short K) and its b'
  // lower (two consumer warpgroups an SM). More than two split blocks an SM run in waves:
  // stream-K. (Fitted where M <= 36 staged A by cp.async; staged by TMA since session 14, both
  // kernels took 0.90-1.03x the time there alike.)
  sms = std::max<uint64_t>(sms, 1);
  const bool wide = m > 32;
  const uint64_t kblocks = k / kBlock, tiles64 = (uint64_t{n} + 63) / 64;
  const uint64_t split_blocks = 2 * tiles64;
  if (split_blocks > 2 * sms) return true;
  const uint64_t per_sm = (split_blocks + sms - 1) / sms;  // 1 or 2
  const uint64_t split_units = (kblocks / 2) * per_sm;
  const uint64_t split_a = wide ? 10190 : 9080;
  const uint64_t split_b = per_sm == 1 ? (wide ? 514 : 407) : (wide ? 443 : 369);
  const uint64_t sk_units = (2 * ((uint64_t{n} + 127) / 128) * kblocks + sms - 1) / sms;
  const uint64_t sk_a = wide ? 16100 : 13400, sk_b = wide ? 375 : 322;
  return sk_a + sk_b * sk_units <= split_a + split_b * split_units;
}

bool PrefillStreamKFirst(uint32_t m, uint32_t n, uint32_t k, uint64_t sms) {
  // In k-block steps on the busiest SM: wg_m128 runs ceil(tiles / SMs) waves of K / 128 steps;
  // stream-K an equal share of all tiles' steps, each kPrefillStreamKStepCost dearer, plus the
  // partials' fixed cost (kPrefillStreamKFixedSteps).
  sms = std::max<uint64_t>(sms, 1);
  const uint64_t tiles = (uint64_t{n} + 127) / 128 * ((uint64_t{m} + 127) / 128);
  const uint64_t kblocks = k / kBlock;
  const uint64_t waves = (tiles + sms - 1) / sms;
  const uint64_t share = (tiles * kblocks + sms - 1) / sms;
  return share * kPrefillStreamKStepCost.num / kPrefillStreamKStepCost.den +
             kPrefillStreamKFixedSteps <
         waves * kblocks;
}

absl::StatusOr<Variant> Fp8Gemm::Pick(const GemmArgs& args) const {
  absl::InlinedVector<Variant, 6> order;
  const bool contiguous = args.a_pitch() == args.w.k && args.c_pitch() == args.w.n;
  const uint64_t sms = Sms();
  // The seed's kernels where the tensor-core ones are not shipped (before sm_90) or refuse.
  const Variant seed = TileCount(kVariants[Variant::kM16W8], 1, args.w.n) <= sms
                           ? Variant::kM16W8
                           : (contiguous ? Variant::kM16 : Variant::kM16Strided);
  // tc_m8_f16 at M <= 2 where each of its blocks walks more than two tiles (H200, bench/NOTES.md
  // session 6: gate_up 39.2 vs 43.1 us, lm_head 130.7 vs 146.2; session 24: no gain where the
  // blocks walk one or two tiles (qkv, o, down), and slower at M = 4 (18.2 vs 13.2 us on o),
  // where each warp stages four rows); CanImplement refuses rows its warps cannot stage.
  const VariantSpec& f16 = kVariants[Variant::kTcM8F16];
  const bool f16_full =
      TileCount(f16, 1, args.w.n) > 2 * uint64_t{Dims(f16, args.m, args.w.n, args.w.k).grid.x};
  // M <= 8 outside tc_m8_f16: the register-load kernels, one block a 16-row tile: tc_m8_ldg (8
  // warps a tile, two blocks an SM) while its tiles fit one round of its blocks, else
  // tc_m8_ldg_w4 (4 warps, four blocks an SM), which starts up to twice as many at once and deals
  // any later rounds in smaller blocks; then tc_m8 (TMA rings, persistent). Measured per launch
  // on an H100, interleaved (bench/NOTES.md session 39): w4 against tc_m8_ldg 1.03-1.17x faster
  // on 265-396 tiles (6 held-out shapes, M = 1-8), 1.09-1.11x on 512 and 1792 tiles; on 256
  // tiles or fewer (o, down) 0.94-0.99x, as it halves the warps an SM. Against tc_m8, which
  // sessions 6-37 picked past 396 tiles (3 blocks an SM): 1.01-1.19x faster on 9 of 10 shapes
  // (M = 1-8, 448-8016 tiles), 0.93x on one (5 x 18944 x 3584).
  const VariantSpec& ldg8 = kVariants[Variant::kTcM8Ldg];
  const Variant ldg = TileCount(ldg8, 1, args.w.n) > ldg8.extra.blocks_per_sm * sms
                          ? Variant::kTcM8LdgW4
                          : Variant::kTcM8Ldg;
  // M = 9..16 below the wgmma boundary: tc_m16_ldg (two activation tiles) while its tiles fit
  // one round of its 2 blocks an SM, else tc_m16 (TMA, persistent). On an H100 (bench/NOTES.md
  // session 41, forced, held-out shapes): up to 264 tiles tc_m16_ldg 0.98-1.03x tc_m16's speed
  // per launch and 1.10-1.27x with settled weights back to back (o, down, 1024 x 4096, 2560 x
  // 9728); past that tc_m16_ldg_w4 was 0.89-1.04x tc_m16 per launch and 0.89-1.08x settled, so
  // tc_m16 keeps those; the register-load kernels follow it (before sm_90 they lead).
  const VariantSpec& ldg16_w8 = kVariants[Variant::kTcM16Ldg];
  const bool ldg16_one_round =
      TileCount(ldg16_w8, 1, args.w.n) <= ldg16_w8.extra.blocks_per_sm * sms;
  const Variant ldg16 = ldg16_one_round ? Variant::kTcM16Ldg : Variant::kTcM16LdgW4;
  // M = 17..64, and M = 9..16 on weights of 64 MiB and more (DispatchesToWgmma), on wgmma (sm_90a):
  // wg_m32 / wg_m64 (persistent, 128-row tiles, one block an SM)
  // run in whole waves of ceil(N / 128) tiles over the SMs; the n64_split2 kernels (64-row tiles,
  // K split over 2 blocks, two blocks an SM) spread the same work over four times the blocks, each
  // about split_cost times dearer per byte. So the split wins when the wg kernels' waves are
  // filled less than 1 / split_cost: split_cost x tiles < SMs x waves. Measured on the H200 from
  // forced runs of both (bench/NOTES.md session 9): 7/5 at M <= 32, 8/5 at M <= 64; o, down, qkv
  // and N = 5120-11008 / 18944 go to the split (1.1-1.3x our BF16 dense at M <= 32), gate_up,
  // lm_head and N = 14336 to wg_m32 / wg_m64. Without wgmma: tc_m32, or tc_m64 while its blocks
  // walk at most 4 tiles each (else m64); at M <= 16 tc_m16, then the seed's kernels.
  const bool wide = args.m > 32;
  const uint64_t wg_tiles =
      TileCount(kVariants[wide ? Variant::kWgM64 : Variant::kWgM32], 1, args.w.n);
  const uint64_t waves = (wg_tiles + sms - 1) / sms;
  const uint64_t split_cost_fifths = wide ? 8 : 7;
  const bool split_first = split_cost_fifths * wg_tiles < 5 * sms * waves;
  const Variant wg = wide ? Variant::kWgM64 : Variant::kWgM32;
  const Variant split = wide ? Variant::kWgM64N64Split2 : Variant::kWgM32N64Split2;
  if (args.m > 64) {
    // wg_m128, or given the workspace its stream-K form where PrefillStreamKFirst estimates it
    // faster; m64's slabs without wgmma.
    order = {Variant::kWgM128, Variant::kM64};
    if (PrefillStreamKFirst(args.m, args.w.n, args.w.k, sms)) {
      order.insert(order.begin(), Variant::kWgM128StreamK);
    }
  } else if (DispatchesToWgmma(args.m, args.w.n, args.w.k)) {
    order = {split_first ? split : wg, split_first ? wg : split};
    // Given the workspace: stream-K first, or second after the split kernel where that is
    // estimated faster (StreamKFirst: at most two of its blocks an SM, so split_first holds;
    // e.g. o at N = K = 4096). Without the workspace CanImplement refuses stream-K.
    const Variant streamk = wide ? Variant::kWgM64StreamK : Variant::kWgM32StreamK;
    order.insert(order.begin() + (StreamKFirst(args.m, args.w.n, args.w.k, sms) ? 0 : 1), streamk);
    const VariantSpec& tc_m64 = kVariants[Variant::kTcM64];
    if (args.m <= 16) {
      order.insert(order.end(), {Variant::kTcM16, ldg16, seed});
    } else if (!wide) {
      order.insert(order.end(), {Variant::kTcM32, Variant::kM64});
    } else if (TileCount(tc_m64, 1, args.w.n) <=
               4 * uint64_t{Dims(tc_m64, args.m, args.w.n, args.w.k).grid.x}) {
      order.insert(order.end(), {Variant::kTcM64, Variant::kM64});
    } else {
      order.insert(order.end(), {Variant::kM64, Variant::kTcM64});
    }
  } else if (args.m <= 2 && f16_full) {
    order = {Variant::kTcM8F16, ldg, Variant::kTcM8, Variant::kTcM16, seed};
  } else if (args.m > 8) {
    order = ldg16_one_round ? absl::InlinedVector<Variant, 6>{ldg16, Variant::kTcM16, seed}
                            : absl::InlinedVector<Variant, 6>{Variant::kTcM16, ldg16, seed};
  } else {
    order = {ldg, Variant::kTcM8, Variant::kTcM16, seed};
  }
  absl::Status last = absl::FailedPreconditionError("fp8: no variant");
  for (Variant v : order) {
    last = CanImplement(v, args);
    if (last.ok()) return v;
  }
  return absl::FailedPreconditionError(StrCat(
      "fp8: no variant can run m=", args.m, " n=", args.w.n, " k=", args.w.k,
      " lda=", args.a_pitch(), " ldc=", args.c_pitch(), " (last refusal: ", last.message(), ")"));
}

}  // namespace gpuops::ops::fp8
