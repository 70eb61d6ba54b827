// Host emulations of the FP8 kernels for the mock. Each walks the recorded grid block by block
// and computes exactly the columns that block of the device kernel owns, for the rows the kernel
// covers (at most its M tile: a launch with more rows leaves the rest unwritten, as the device
// does), at the launch's row pitches; so a launcher that passes a wrong pitch, a short grid or an
// under-sized buffer produces unwritten outputs, damaged neighbours or an error naming the kernel
// and argument. The kernels' warps assume their block, so any other block is refused; an operand
// or pitch the device would fault on (16-byte loads need 16-byte rows) is refused too. The
// persistent kernels (the tc_ kernels on TMA) take the weight as a tensor map, which must
// describe it; the wgmma kernels the activations as a tensor map too, which must describe the
// same rows as their input pointer and pitch; the stream-K kernels a workspace whose flags must
// be zero.
//
// Every kernel is emulated by the strict order of the scalar kernels (StrictOrderGemm): bit-exact
// for those, within the tensor-core bound for the others.
#include <algorithm>
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/e4m3.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/fp8/fp8_args.h"
#include "ops/fp8/fp8_gemm.h"

namespace gpuops::ops::fp8 {
namespace {

// What every FP8 kernel's argument list says, whichever list it is.
struct Operands {
  DevicePtr input, weight, block_scale, output;
  uint32_t m = 0, n = 0, k = 0, lda = 0, ldc = 0;
  std::string_view weight_label, input_label, block_scale_label, output_label;
};

template <typename Args>
absl::StatusOr<Operands> OperandsOf(const HostLaunch& l, const VariantSpec& spec,
                                    const Args& args) {
  Operands o{.input = args.input,
             .block_scale = args.block_scale,
             .output = args.output,
             .m = args.m,
             .n = args.n,
             .k = args.k,
             .lda = args.k,
             .ldc = args.n,
             .input_label = ArgLabel(&Args::input),
             .block_scale_label = ArgLabel(&Args::block_scale),
             .output_label = ArgLabel(&Args::output)};
  if constexpr (requires { args.weight_map; }) {
    // The weight is where its tensor map points: [n, k] bytes, rows k apart, the kernel's box
    // (one tile's rows x one 128-k block).
    GPUOPS_ASSIGN_OR_RETURN(
        TensorMapDesc d,
        CheckTensorMap(l, args.weight_map, ArgLabel(&Args::weight_map), TensorMapDataType::kU8,
                       args.n, args.k, spec.tile_n, kBlock));
    if (d.global_strides[1] != args.k) {
      return absl::InvalidArgumentError(StrCat(l.kernel(), ": weight_map rows are ",
                                               d.global_strides[1], " bytes apart, the weight's ",
                                               args.k));
    }
    o.weight = d.global_address;
    o.weight_label = ArgLabel(&Args::weight_map);
  } else {
    o.weight = args.weight;
    o.weight_label = ArgLabel(&Args::weight);
  }
  if constexpr (!std::is_same_v<Args, Fp8Args>) {
    o.lda = args.a_row_stride;
    o.ldc = args.c_row_stride;
  }
  if constexpr (requires { args.input_map; }) {
    // The kernel stages A through input_map or from input (by m), so both must name the same
    // rows: m x k BF16 at input, a_row_stride apart, the kernel's box (its M tile, or m rows
    // where fewer, x 64 k).
    GPUOPS_ASSIGN_OR_RETURN(
        const TensorMapDesc d,
        CheckTensorMap(l, args.input_map, ArgLabel(&Args::input_map), TensorMapDataType::kBF16,
                       args.m, args.k, std::min(spec.tile_m, args.m), 64));
    if (d.global_address != args.input || d.global_strides[1] != uint64_t{args.a_row_stride} * 2) {
      return absl::InvalidArgumentError(
          StrCat(l.kernel(), ": input_map points at 0x", Hex(d.global_address.address()),
                 " with rows ", d.global_strides[1], " bytes apart; input and a_row_stride say 0x",
                 Hex(args.input.address()), " and ", uint64_t{args.a_row_stride} * 2,
                 " bytes: both must describe the same activation rows"));
    }
  }
  return o;
}

template <typename Args>
absl::Status Emulate(Variant v, const HostLaunch& l, HostMemory& mem) {
  const VariantSpec& spec = kVariants[v];
  GPUOPS_RETURN_IF_ERROR(RequireBlock(l, spec.block));
  GPUOPS_RETURN_IF_ERROR(RequireSharedMem(l, spec.shared_mem_bytes, "its stages"));
  GPUOPS_ASSIGN_OR_RETURN(Args args, l.Unpack<Args>());
  GPUOPS_ASSIGN_OR_RETURN(const Operands o, OperandsOf(l, spec, args));
  const uint32_t rows = LaunchRows(spec, o.m);
  GPUOPS_RETURN_IF_ERROR(l.ChargeWork(SaturatingMul(SaturatingMul(rows, o.n), o.k)));
  if (spec.extra.stages_f16_rows && !TcM8F16Tile::StagesFit(rows, o.k)) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": ", rows, " rows of k=", o.k, " overflow the ",
               TcM8F16Tile::kStagedPerWarp, " F16 elements a warp of its shared memory stages"));
  }
  if (o.k % kBlock != 0) {
    return absl::InvalidArgumentError(
        StrCat(l.kernel(), ": k=", o.k, " is not a multiple of 128 (one scale per 128 k)"));
  }
  if (o.lda < o.k || o.ldc < o.n) {
    return absl::InvalidArgumentError(StrCat(l.kernel(), ": row pitches (a=", o.lda, ", c=", o.ldc,
                                             ") do not cover k=", o.k, " and n=", o.n));
  }
  if (spec.extra.stages_a) {
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, o.input, o.input_label, 16));
    if (o.lda % 8 != 0) {
      return absl::InvalidArgumentError(
          StrCat(l.kernel(), ": a_row_stride=", o.lda,
                 " leaves rows of A off 16-byte alignment: "
                 "the device faults on its 16-byte loads (CUDA_ERROR_MISALIGNED_ADDRESS)"));
    }
  }
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, o.weight, o.weight_label, 16));
  GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, o.block_scale, o.block_scale_label, 4));
  StridedView view{.n = o.n, .k = o.k, .lda = o.lda, .ldc = o.ldc};
  GPUOPS_ASSIGN_OR_RETURN(
      view.a, mem.View<uint16_t>(o.input, PitchedElements(rows, o.k, o.lda), o.input_label));
  GPUOPS_ASSIGN_OR_RETURN(view.weight,
                          mem.View<uint8_t>(o.weight, uint64_t{o.n} * o.k, o.weight_label));
  GPUOPS_ASSIGN_OR_RETURN(view.block_scale,
                          mem.View<float>(o.block_scale, uint64_t{ScaleRows(o.n)} * (o.k / kBlock),
                                          o.block_scale_label));
  GPUOPS_ASSIGN_OR_RETURN(
      view.c, mem.View<uint16_t>(o.output, PitchedElements(rows, o.n, o.ldc), o.output_label));
  if (spec.extra.cluster > 1) {
    // A cluster of blocks a tile, one tile a cluster: the grid must hold every tile's cluster
    // (the device refuses a grid that is not a multiple of the cluster; a shorter one skips tiles).
    const uint64_t want = TileCount(spec, 1, o.n) * spec.extra.cluster;
    if (l.grid().x != want || l.grid().y != 1 || l.grid().z != 1) {
      return absl::InvalidArgumentError(StrCat(
          l.kernel(), ": grid (", l.grid().x, ", ", l.grid().y, ", ", l.grid().z,
          ") is not ceil(n=", o.n, " / ", spec.tile_n, ") x ", spec.extra.cluster, " blocks = (",
          want, ", 1, 1): one cluster of ", spec.extra.cluster, " blocks a tile"));
    }
  }
  if constexpr (std::is_same_v<Args, Fp8StreamKArgs>) {
    // Stream-K: blocks share the units (tile, 128-k block) as StreamKUnits deals them, which
    // needs 1 <= grid.x <= units; the workspace holds that grid's flags and partials, the flags
    // zero (a flag left set would hand a stale partial to the owner of a tile).
    const uint64_t units = TileCount(spec, rows, o.n) * (o.k / kBlock);
    if (l.grid().x == 0 || l.grid().x > units || l.grid().y != 1 || l.grid().z != 1) {
      return absl::InvalidArgumentError(StrCat(l.kernel(), ": grid (", l.grid().x, ", ", l.grid().y,
                                               ", ", l.grid().z, ") is not (1..", units,
                                               ", 1, 1): one block a share of ceil(n=", o.n, " / ",
                                               spec.tile_n, ") x ceil(rows=", rows, " / ",
                                               spec.tile_m, ") tiles x k=", o.k, " / 128 units"));
    }
    GPUOPS_RETURN_IF_ERROR(RequireArgAligned(l, args.workspace, ArgLabel(&Args::workspace), 16));
    const StreamKWorkspace layout = StreamKLayoutOf(spec, static_cast<uint32_t>(l.grid().x));
    GPUOPS_ASSIGN_OR_RETURN(auto workspace, mem.View<uint32_t>(args.workspace, layout.bytes() / 4,
                                                               ArgLabel(&Args::workspace)));
    const uint64_t flags = uint64_t{layout.grid} * layout.consumers;
    for (uint64_t i = 0; i < flags; ++i) {
      if (workspace[i] != 0) {
        return absl::InvalidArgumentError(
            StrCat(l.kernel(), ": workspace flag ", i, " is ", workspace[i],
                   ", not 0: the stream-K workspace must be zero-filled before its first use"));
      }
    }
  }
  if (spec.order == GridOrder::kPersistent || spec.extra.cluster > 1) {
    // Every tile is covered: persistent blocks b walk tiles b, b + grid.x, ... (any grid of at
    // least one block), and a split grid holds one cluster a tile (checked above).
    if (rows == 0) return absl::OkStatus();
    for (uint32_t col0 = 0; col0 < o.n; col0 += spec.tile_n) {
      StrictOrderGemm(view, rows, col0, std::min(spec.tile_n, o.n - col0));
    }
    return absl::OkStatus();
  }
  ForEachNFastTile(l, rows, o.n, spec.tile_m, spec.tile_n, spec.tile_m, spec.tile_n,
                   [&](uint32_t, uint32_t tile_rows, uint32_t col0, uint32_t cols) {
                     StrictOrderGemm(view, tile_rows, col0, cols);
                   });
  return absl::OkStatus();
}

// Variant v's emulation, unpacking the argument list `Args`.
template <typename Args>
HostKernelFn EmulationOf(Variant v) {
  return [v](const HostLaunch& l, HostMemory& mem) { return Emulate<Args>(v, l, mem); };
}

}  // namespace

void StrictOrderGemm(const StridedView& v, uint32_t rows, uint32_t col0, uint32_t cols) {
  const uint32_t kblocks = v.k / kBlock;
  std::vector<float> a(static_cast<size_t>(rows) * v.k);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t i = 0; i < v.k; ++i)
      a[size_t{r} * v.k + i] = Bf16ToFloat(v.a[uint64_t{r} * v.lda + i]);
  }
  std::vector<float> w(v.k);
  for (uint32_t col = col0; col < col0 + cols; ++col) {
    for (uint32_t i = 0; i < v.k; ++i) w[i] = E4m3ToFloat(v.weight[uint64_t{col} * v.k + i]);
    const float* scales = &v.block_scale[uint64_t{col / kBlock} * kblocks];
    for (uint32_t r = 0; r < rows; ++r) {
      const float* ar = &a[size_t{r} * v.k];
      float outer = 0.0f;
      for (uint32_t b = 0; b < kblocks; ++b) {
        float inner = 0.0f;
        for (uint32_t i = b * kBlock; i < (b + 1) * kBlock; ++i)
          inner = std::fma(ar[i], w[i], inner);
        outer = std::fma(inner, scales[b], outer);
      }
      v.c[uint64_t{r} * v.ldc + col] = FloatToBf16(outer);
    }
  }
}

void RegisterHostKernels(HostKernelRegistry& registry) {
  for (const VariantSpec& spec : kVariants.rows()) {
    const Variant v = spec.variant;
    HostKernelFn fn;
    switch (spec.shape) {
      case ArgShape::kContiguous:
        fn = EmulationOf<Fp8Args>(v);
        break;
      case ArgShape::kStrided:
        fn = EmulationOf<Fp8StridedArgs>(v);
        break;
      case ArgShape::kTma:
        fn = EmulationOf<Fp8TmaArgs>(v);
        break;
      case ArgShape::kWgmma:
        fn = EmulationOf<Fp8WgmmaArgs>(v);
        break;
      case ArgShape::kStreamK:
        fn = EmulationOf<Fp8StreamKArgs>(v);
        break;
    }
    registry.Register(spec.kernel, std::move(fn));
  }
}

}  // namespace gpuops::ops::fp8
