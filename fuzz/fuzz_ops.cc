// libFuzzer target: the ops API on an executing mock. The input picks an entry point (dense
// Run / Plan / Gemm / CanImplement, the common and testkit ops), a variant (out-of-range values
// too), a shape (small, or one near the 32-bit limits), a row stride, split count and scale,
// and for every operand its size relative to what the shape needs, its alignment and whether it
// is passed as an unchecked span. Every call must return (OK or a Status) without a crash or a
// sanitizer report, and a call refused with sized operands must leave every operand as it was.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/owned.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "ops/testkit/testkit.h"

namespace {

using gpuops::DevicePtr;
using gpuops::DeviceSpan;

// Bytes of the input, read front to back; zeros once it runs out.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t U16() { return uint32_t{U8()} | uint32_t{U8()} << 8; }
  bool Bit() { return (U8() & 1) != 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct Ops {
  gpuops::mock::RecordingBackend gpu;
  std::optional<gpuops::ops::dense::DenseGemm> dense;
  std::optional<gpuops::ops::common::CommonKernels> common;
  std::optional<gpuops::ops::testkit::TestKernels> testkit;

  // A small work bound keeps every input fast; larger calls are refused, which is tested too.
  Ops()
      : gpu(gpuops::mock::RecordingBackend::Options{.memory_limit_bytes = uint64_t{1} << 30,
                                                    .max_emulated_blocks = 1 << 16,
                                                    .max_emulated_work = 1 << 22}) {
    auto d = gpuops::ops::dense::DenseGemm::Load(gpu);
    auto c = gpuops::ops::common::CommonKernels::Load(gpu);
    auto t = gpuops::ops::testkit::TestKernels::Load(gpu);
    if (!d.ok() || !c.ok() || !t.ok()) std::abort();
    dense.emplace(*std::move(d));
    common.emplace(*std::move(c));
    testkit.emplace(*std::move(t));
  }
};

// A dimension: mostly small, sometimes zero or near the 32-bit limits.
uint32_t Dim(Input& in, uint32_t small) {
  switch (in.U8() % 16) {
    case 0:
      return 0;
    case 1:
      return 0xFFFFFFFFu - in.U8();
    case 2:
      return 0x80000000u + in.U8();
    default:
      return 1 + in.U16() % small;
  }
}

// One operand: `need` bytes give or take what the input says, at an offset that may misalign it,
// filled with a pattern; passed sized or unchecked.
struct Operand {
  gpuops::DeviceBuffer buffer;
  DeviceSpan span;
  std::vector<uint8_t> contents;
};

bool MakeOperand(Ops& ops, Input& in, uint64_t need, Operand& out) {
  const uint8_t mode = in.U8();
  uint64_t bytes = std::min<uint64_t>(need, uint64_t{1} << 20);
  if (mode % 4 == 0) bytes = bytes > 0 ? bytes - 1 - in.U8() % std::max<uint64_t>(bytes, 1) : 0;
  if (mode % 4 == 1) bytes += in.U8();
  const uint64_t offset = (mode & 0x10) != 0 ? in.U8() % 32 : 0;
  auto buffer = gpuops::DeviceBuffer::Allocate(ops.gpu, bytes + offset);
  if (!buffer.ok()) return false;
  out.contents.resize(bytes + offset);
  for (size_t i = 0; i < out.contents.size(); ++i) out.contents[i] = static_cast<uint8_t>(i * 31);
  if (!buffer->Upload<uint8_t>(out.contents).ok()) return false;
  const DevicePtr at = buffer->ptr().offset(offset);
  out.span = (mode & 0x20) != 0 ? DeviceSpan::Unchecked(at) : DeviceSpan(at, bytes);
  out.buffer = *std::move(buffer);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Ops* ops = new Ops();
  Input in(data, size);
  const uint8_t entry = in.U8() % 9;
  gpuops::ops::dense::GemmArgs args;
  args.m = Dim(in, 48);
  args.n = Dim(in, 200);
  args.k = Dim(in, 200);
  args.ldb = in.Bit() ? 0 : Dim(in, 256);
  args.splits = in.Bit() ? 0 : in.U8() % 80;
  const float scales[] = {1.0f, 0.5f, -3.0f, std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity()};
  args.scale = scales[in.U8() % 5];
  const auto variant = static_cast<gpuops::ops::dense::Variant>(in.U8() % 16);

  const gpuops::ops::dense::GemmExtents need = gpuops::ops::dense::ExtentsOf(args);
  const uint64_t ws_need = ops->dense->WorkspaceBytes(
      entry == 2 ? gpuops::ops::dense::Variant::kWgmma128x128SplitK : variant, args);
  Operand a, b, c, ws;
  if (!MakeOperand(*ops, in, need.a, a) || !MakeOperand(*ops, in, need.b, b) ||
      !MakeOperand(*ops, in, need.c, c) || !MakeOperand(*ops, in, ws_need, ws)) {
    return 0;
  }
  args.a = a.span;
  args.b = b.span;
  args.c = c.span;
  args.workspace = in.Bit() ? ws.span : DeviceSpan();
  const uint64_t elems = in.U16() % 5000;

  absl::Status s;
  switch (entry) {
    case 0:
      s = ops->dense->Run(variant, args);
      break;
    case 1:
      s = ops->dense->Plan(variant, args).status();
      if (s.ok()) s = absl::InternalError("planned only");  // nothing ran: operands unchanged
      break;
    case 2:
      s = ops->dense->Gemm(args);
      break;
    case 3:
      s = ops->dense->CanImplement(variant, args);
      if (s.ok()) s = absl::InternalError("checked only");
      break;
    case 4:
      s = ops->common->Bf16ScaledAdd(c.span, a.span, args.scale, elems);
      break;
    case 5:
      s = ops->common->FillU16(c.span, 0x1234, elems);
      break;
    case 6:
      s = ops->common->CopyBf16(c.span, b.span, elems);
      break;
    case 7:
      s = ops->testkit->StoreU64(c.span, 42);
      break;
    default:
      s = ops->testkit->StreamRead(a.span, 1 + in.U8() % 8, ws.span);
      break;
  }
  // A refused call leaves every operand as it was. (Through an unchecked span the caller vouches
  // for the extent; a launch after the first may then fail on the mock after earlier ones ran.)
  const bool sized =
      !a.span.unchecked() && !b.span.unchecked() && !c.span.unchecked() && !ws.span.unchecked();
  if (!s.ok() && sized) {
    for (Operand* o : {&a, &b, &c, &ws}) {
      auto now = o->buffer.ToHost<uint8_t>();
      if (!now.ok() || *now != o->contents) std::abort();
    }
  }
  ops->gpu.ClearLaunches();
  return 0;
}
