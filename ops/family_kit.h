// What every op family builds from, so that no family copies it: the variant spec and its table,
// grid orders and tile-grid arithmetic, loading a family's module and binding its kernels to their
// argument lists, the messages CanImplement refuses with, the plan an op computes once and runs,
// and the tile walk of host emulations.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/device_span.h"
#include "gpuops/runtime/host_kernel.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/module.h"
#include "gpuops/runtime/str.h"
#include "gpuops/runtime/typed_kernel.h"
#include "gpuops/runtime/types.h"

namespace gpuops::ops {

// --- Variants

// Accuracy contracts (../shared/docs/numerics.md); each variant states one.
enum class Accuracy : uint8_t {
  kStrictOrder,   // bf16 of the FP32 sum in k order, one rounding per multiply and add: bit-exact
  kTensorCore,    // |out - ref| <= ulp(ref) + 2^-14 Σ|a·b|, relative Frobenius < 8e-3
  kBitIdentical,  // bit-identical to a pair of ops the family names (a fused epilogue)
  // Lossy, under its own name: A rounded to FP8 E4M3 (nearest even; a row holding a magnitude
  // beyond 448 comes out NaN), then the tensor-core bound against the float64 reference of the
  // rounded A (docs/numerics.md).
  kFp8Activations,
};
std::string_view ToString(Accuracy a);

// How a variant's grid covers the output. N-fast is the contract unless a variant says otherwise.
enum class GridOrder : uint8_t {
  kNFast,       // grid (ceil(N / tile_n), ceil(M / tile_m), z): blockIdx.x walks N tiles
  kPersistent,  // grid (min(units, SMs)): block b takes units b, b + grid.x, ...
};

struct NoExtra {
  friend constexpr bool operator==(NoExtra, NoExtra) = default;
};

// One row of a family's variants table: a kernel with its launch geometry, argument shape,
// requirements and accuracy contract. Rows are written with designated initializers; `Extra`
// holds what only one family's launcher needs.
template <typename VariantT, typename ShapeT, typename ExtraT = NoExtra>
struct VariantSpec {
  using Variant = VariantT;
  VariantT variant{};
  std::string_view name;           // short name: "tc", "pipelined_ldb"
  std::string_view kernel;         // the kernel symbol
  std::string_view second_kernel;  // a second launch's kernel (split-K's reduce); empty if none
  ShapeT shape{};                  // the argument list the kernel takes: one launcher per shape
  Accuracy accuracy = Accuracy::kTensorCore;
  uint32_t tile_m = 1;
  uint32_t tile_n = 1;
  Dim3 block;
  uint32_t shared_mem_bytes = 0;  // dynamic shared memory per block
  GridOrder order = GridOrder::kNFast;
  uint32_t k_multiple = 1;  // K % k_multiple == 0
  uint32_t n_multiple = 1;  // N % n_multiple == 0
  uint32_t max_m = 0;       // the most rows of A the kernel covers (0: any)
  std::string_view summary;
  ExtraT extra{};
};

// A family's variants, indexed by its Variant enum (row i describes variant i). Lookups of a
// value outside the table are errors, never reads past it.
template <typename Spec, size_t N>
class VariantTable {
 public:
  using Variant = typename Spec::Variant;

  consteval VariantTable(std::string_view family, std::array<Spec, N> rows)
      : family_(family), rows_(rows) {}

  // True when row i describes variant i; families static_assert it.
  consteval bool InOrder() const {
    for (size_t i = 0; i < N; ++i) {
      if (static_cast<size_t>(rows_[i].variant) != i) return false;
    }
    return true;
  }

  std::string_view family() const { return family_; }
  absl::Span<const Spec> rows() const { return rows_; }
  static constexpr size_t size() { return N; }

  // The row of `v`, or null when `v` is not one of the table's variants.
  const Spec* Find(Variant v) const {
    const auto i = static_cast<size_t>(v);
    return i < N ? &rows_[i] : nullptr;
  }
  // The row of a variant known to be in the table (a value read from its rows).
  const Spec& operator[](Variant v) const { return rows_[static_cast<size_t>(v)]; }

  // kInvalidArgument for a value outside the table (a cast from an unchecked integer).
  absl::StatusOr<const Spec*> Get(Variant v) const {
    if (const Spec* s = Find(v)) return s;
    return absl::InvalidArgumentError(StrCat(family_, ": variant ", static_cast<int64_t>(v),
                                             " does not exist (the table has 0..", N - 1, ")"));
  }

  // "tc" -> its variant; kNotFound listing the names otherwise.
  absl::StatusOr<Variant> Parse(std::string_view name) const {
    for (const Spec& s : rows_) {
      if (s.name == name) return s.variant;
    }
    return absl::NotFoundError(StrCat(
        family_, ": no variant '", name, "' (variants: ",
        StrJoin(rows_, ", ", [](std::string* out, const Spec& s) { StrAppend(out, s.name); }),
        ")"));
  }

 private:
  std::string_view family_;
  std::array<Spec, N> rows_;
};

// --- Tile-grid arithmetic

// The output tiles of a problem: ceil(M / tile_m) x ceil(N / tile_n).
template <typename Spec>
uint64_t TileCount(const Spec& spec, uint32_t m, uint32_t n) {
  return uint64_t{CeilDiv(m, spec.tile_m)} * CeilDiv(n, spec.tile_n);
}

// The N-fast tile grid: (ceil(N / tile_n), ceil(M / tile_m), z).
template <typename Spec>
Dim3 TileGrid(const Spec& spec, uint32_t m, uint32_t n, uint32_t z = 1) {
  return {CeilDiv(n, spec.tile_n), CeilDiv(m, spec.tile_m), z};
}

// A persistent grid over `units` work units: at most `blocks_per_sm` blocks per SM.
inline Dim3 PersistentGrid(uint64_t units, const DeviceInfo& device, uint32_t blocks_per_sm = 1) {
  const uint64_t sms = static_cast<uint64_t>(std::max(device.sm_count, 1));
  return {static_cast<uint32_t>(std::min(units, sms * std::max(blocks_per_sm, 1u))), 1, 1};
}

// --- CanImplement's refusals: "kernel: what", with the code each kind of refusal takes.

// kInvalidArgument: a shape, stride, alignment or argument the kernel cannot take.
absl::Status ArgumentError(std::string_view kernel, std::string_view what);
// kFailedPrecondition: this build or device does not ship the kernel.
absl::Status NotShipped(std::string_view kernel, const DeviceInfo& device);

// `value` (named `name`) is a multiple of `multiple`; `why` says what needs it.
absl::Status RequireMultiple(std::string_view kernel, std::string_view name, uint64_t value,
                             uint64_t multiple, std::string_view why);
// `ptr` (operand `name`) is `alignment`-byte aligned; `why` says what needs it.
absl::Status RequireAligned(std::string_view kernel, std::string_view name, DevicePtr ptr,
                            uint64_t alignment, std::string_view why);
// `span` (operand `name`) holds the `need` bytes that `what` describes ("m=16 x k=4096 BF16");
// an unchecked span (DeviceSpan::Unchecked) passes, its extent being the caller's word.
absl::Status RequireExtent(std::string_view kernel, std::string_view name, DeviceSpan span,
                           uint64_t need, std::string_view what);
// a * b, or the largest uint64 when the product does not fit (an extent no buffer can hold).
constexpr uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
constexpr uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
// The bytes a kernel reads or writes through one operand: `rows` rows of `row_bytes` bytes,
// `pitch` bytes apart (one row: a contiguous range).
struct OperandBytes {
  std::string_view name;
  uint64_t address = 0;
  uint64_t rows = 0;
  uint64_t row_bytes = 0;
  uint64_t pitch = 0;
};
// Those of `span`, or none when it is unchecked (DeviceSpan::Unchecked: its extent, and so what
// it may share with another operand, is the caller's word) or null.
OperandBytes OperandBytesOf(std::string_view name, DeviceSpan span, uint64_t rows,
                            uint64_t row_bytes, uint64_t pitch);
// Whether a and b share a byte. Exact where their rows are one pitch apart and no wider than it
// (slots of one packed row buffer, as fp8's Q, K and V, do not meet); otherwise by their
// bounding ranges.
bool OperandsMeet(const OperandBytes& a, const OperandBytes& b);
// No operand in `written` shares a byte with another written operand or with one in `read`:
// the kernel would read what it is overwriting, or two of its stores would race. kInvalidArgument
// naming both operands and their addresses.
absl::Status RequireDisjoint(std::string_view kernel, absl::Span<const OperandBytes> written,
                             absl::Span<const OperandBytes> read);
// Every axis of `grid` is within the device's limits; `shape` describes the problem.
absl::Status RequireGridFits(std::string_view kernel, Dim3 grid, const DeviceInfo& device,
                             std::string_view shape);

// --- Loading a family and binding its kernels

using RegisterHostKernelsFn = void (*)(HostKernelRegistry&);

// The family's module loaded on `gpu`, after its host emulations are registered (once per
// process) in GlobalHostKernels() for backends without a GPU.
absl::StatusOr<LoadedModule> LoadFamilyModule(GpuBackend& gpu, const ModuleImage& image,
                                              RegisterHostKernelsFn register_host_kernels);

// The kernel `name` bound to Args; a null TypedKernel when the image does not ship it here.
template <typename Args>
absl::StatusOr<TypedKernel<Args>> BindKernel(const LoadedModule& module, std::string_view name) {
  absl::StatusOr<KernelHandle> handle = module.KernelOrNull(name);
  if (!handle.ok()) return handle.status();
  return TypedKernel<Args>::Bind(*handle);
}

// The same, for a kernel the family cannot work without: kFailedPrecondition when not shipped.
template <typename Args>
absl::StatusOr<TypedKernel<Args>> RequireKernel(const LoadedModule& module, std::string_view family,
                                                std::string_view name) {
  absl::StatusOr<TypedKernel<Args>> kernel = BindKernel<Args>(module, name);
  if (kernel.ok() && kernel->is_null()) {
    return absl::FailedPreconditionError(
        StrCat(family, " family: this build ships no ", name, " for the device"));
  }
  return kernel;
}

// The kernels of a family's variants table (kTable), each bound at load to the argument list its
// row's ArgShape names: shape value i binds Args...[i]. One per loaded op; a variant whose kernel
// the image does not ship holds a null kernel.
template <const auto& kTable, typename... Args>
class BoundVariants {
 public:
  using Table = std::remove_cvref_t<decltype(kTable)>;
  using Variant = typename Table::Variant;

  static absl::StatusOr<BoundVariants> Bind(const LoadedModule& module) {
    BoundVariants out;
    for (const auto& spec : kTable.rows()) {
      absl::StatusOr<AnyKernel> kernel =
          BindAt(static_cast<size_t>(spec.shape), module, spec.kernel);
      if (!kernel.ok()) return kernel.status();
      out.kernels_[static_cast<size_t>(spec.variant)] = *std::move(kernel);
    }
    return out;
  }

  // The variant's kernel; null when not shipped or not a variant.
  KernelHandle handle(Variant v) const {
    if (kTable.Find(v) == nullptr) return KernelHandle();
    return std::visit([](const auto& k) { return k.handle(); }, kernels_[static_cast<size_t>(v)]);
  }
  bool Ships(Variant v) const { return !handle(v).is_null(); }
  // The variant's kernel as bound to A; null when it takes another list or is not a variant.
  template <typename A>
  const TypedKernel<A>* Get(Variant v) const {
    if (kTable.Find(v) == nullptr) return nullptr;
    return std::get_if<TypedKernel<A>>(&kernels_[static_cast<size_t>(v)]);
  }

 private:
  using AnyKernel = std::variant<TypedKernel<Args>...>;

  template <size_t I = 0>
  static absl::StatusOr<AnyKernel> BindAt(size_t shape, const LoadedModule& module,
                                          std::string_view name) {
    if constexpr (I == sizeof...(Args)) {
      return absl::InternalError(StrCat(kTable.family(), ": ", name, " takes argument shape ",
                                        shape, ", and the family binds ", sizeof...(Args)));
    } else {
      if (shape != I) return BindAt<I + 1>(shape, module, name);
      using A = std::tuple_element_t<I, std::tuple<Args...>>;
      absl::StatusOr<TypedKernel<A>> kernel = BindKernel<A>(module, name);
      if (!kernel.ok()) return kernel.status();
      return AnyKernel(std::in_place_index<I>, *std::move(kernel));
    }
  }

  std::array<AnyKernel, Table::size()> kernels_{};
};

// --- Plans

// What an op launches for one call, computed once (CUTLASS's initialize): the variant, its K
// splits, the workspace it uses, and every launch with its grid, block and arguments. Run
// launches them in order; a trace prints them.
template <typename VariantT>
struct Plan {
  VariantT variant{};
  std::string_view variant_name;
  uint32_t splits = 1;           // K splits; 1 when the variant does not split
  uint64_t workspace_bytes = 0;  // of the caller's workspace the launches use
  absl::InlinedVector<KernelLaunch, 2> launches;
};

// Launches `launches` in order on `stream`; stops at the first error.
absl::Status RunLaunches(absl::Span<const KernelLaunch> launches, StreamHandle stream);

// The plan-then-run entry points of a GEMM family, written once (CRTP). `Op` provides
// CanImplement(v, args), Pick(args) (the dispatcher, which has run CanImplement for the variant
// it returns) and PlanAccepted(v, args) (the launches of a variant CanImplement accepted; it may
// be private if Op befriends this class).
template <typename Op, typename VariantT, typename ArgsT>
class PlannedGemm {
 public:
  using OpPlan = ops::Plan<VariantT>;

  // Every launch of `v` for `args`, after CanImplement.
  absl::StatusOr<OpPlan> Plan(VariantT v, const ArgsT& args) const {
    if (absl::Status s = self().CanImplement(v, args); !s.ok()) return s;
    return self().PlanAccepted(v, args);
  }
  // The dispatcher's plan (Pick, then Plan).
  absl::StatusOr<OpPlan> Plan(const ArgsT& args) const {
    absl::StatusOr<VariantT> v = self().Pick(args);
    if (!v.ok()) return v.status();
    return self().PlanAccepted(*v, args);
  }
  absl::Status Run(const OpPlan& plan, StreamHandle stream = {}) const {
    return RunLaunches(plan.launches, stream);
  }
  absl::Status Run(VariantT v, const ArgsT& args, StreamHandle stream = {}) const {
    absl::StatusOr<OpPlan> plan = Plan(v, args);
    return plan.ok() ? Run(*plan, stream) : plan.status();
  }
  // The dispatcher's pick, planned and run.
  absl::Status Gemm(const ArgsT& args, StreamHandle stream = {}) const {
    absl::StatusOr<OpPlan> plan = Plan(args);
    return plan.ok() ? Run(*plan, stream) : plan.status();
  }

 private:
  const Op& self() const { return static_cast<const Op&>(*this); }
};

// --- Host emulations

// Calls fn(row0, rows, col0, cols) for each block of an N-fast grid (blockIdx.x over N tiles of
// tile_n, blockIdx.y over M tiles of tile_m) whose tile starts inside M x N; a block covers
// rows_per_block x cols_per_block outputs from there, clipped to M and N. Blocks past the output
// write nothing, as the kernels' guards do.
template <typename Fn>
void ForEachNFastTile(const HostLaunch& l, uint32_t m, uint32_t n, uint32_t tile_m, uint32_t tile_n,
                      uint32_t rows_per_block, uint32_t cols_per_block, Fn fn) {
  for (uint64_t by = 0; by < l.grid().y; ++by) {
    for (uint64_t bx = 0; bx < l.grid().x; ++bx) {
      const uint64_t row0 = by * tile_m;
      const uint64_t col0 = bx * tile_n;
      if (row0 >= m || col0 >= n) continue;
      const auto rows = static_cast<uint32_t>(std::min<uint64_t>(rows_per_block, m - row0));
      const auto cols = static_cast<uint32_t>(std::min<uint64_t>(cols_per_block, n - col0));
      fn(static_cast<uint32_t>(row0), rows, static_cast<uint32_t>(col0), cols);
    }
  }
}

// kInvalidArgument unless the launch's block is `want` (kernels whose warps assume their block).
absl::Status RequireBlock(const HostLaunch& l, Dim3 want);
// kInvalidArgument unless the launch has at least `need` bytes of dynamic shared memory, which
// `what` ("its stages", "8 warps") needs.
absl::Status RequireSharedMem(const HostLaunch& l, uint32_t need, std::string_view what);

// The tensor map a TMA kernel received, decoded, when it describes a row-major rows x k operand
// of `type` with rows contiguous in k, the kernel's box (box_rows x box_k) and 128-byte swizzle;
// kInvalidArgument naming the argument (`label`) otherwise.
absl::StatusOr<TensorMapDesc> CheckTensorMap(const HostLaunch& l, const TensorMapBytes& bytes,
                                             std::string_view label, TensorMapDataType type,
                                             uint32_t rows, uint32_t k, uint32_t box_rows,
                                             uint32_t box_k);

// kInvalidArgument unless argument `what` (ArgLabel) is `alignment`-byte aligned, as the
// kernel's vector loads need: the device would fault with a misaligned address.
absl::Status RequireArgAligned(const HostLaunch& l, DevicePtr p, std::string_view what,
                               uint64_t alignment);

}  // namespace gpuops::ops
