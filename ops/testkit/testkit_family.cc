// The testkit family as tools and suites see it (ops/family.h): its kernels as ops, each checked
// for what it promises (the store writes its value, the stream read reads every byte and writes
// nothing, the empty kernel launches).
#include <vector>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "ops/testkit/testkit.h"

namespace gpuops::ops::testkit {
namespace {

// Runs `op` once; a non-empty string says what went wrong.
absl::StatusOr<std::string> CheckOp(GpuBackend& gpu, const TestKernels& k, std::string_view op,
                                    uint64_t seed) {
  if (op == "store_u64") {
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer word,
                            DeviceBuffer::FromHost<uint64_t>(gpu, std::vector<uint64_t>{0, 0}));
    const uint64_t value = seed | 1;
    GPUOPS_RETURN_IF_ERROR(k.StoreU64(word.span(), value));
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint64_t> got, word.ToHost<uint64_t>());
    if (got[0] != value || got[1] != 0) {
      return StrCat("stored 0x", Hex(got[0]), " (next word 0x", Hex(got[1]), "), expected 0x",
                    Hex(value));
    }
    return std::string();
  }
  if (op == "stream_read") {
    // Zeros fold to 0, never the kernel's `never` word: the sink must stay as it was.
    constexpr uint32_t kBlocks = 8;
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer src, DeviceBuffer::Allocate(gpu, 1 << 20));
    GPUOPS_RETURN_IF_ERROR(gpu.Memset(src.ptr(), 0, src.bytes()));
    const std::vector<uint32_t> sink0(kBlocks, 0xa5a5a5a5u);
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer sink, DeviceBuffer::FromHost<uint32_t>(gpu, sink0));
    GPUOPS_RETURN_IF_ERROR(k.StreamRead(src.span(), kBlocks, sink.span()));
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint32_t> got, sink.ToHost<uint32_t>());
    return got == sink0 ? std::string() : std::string("the sink was written");
  }
  GPUOPS_RETURN_IF_ERROR(k.Noop());
  GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
  return std::string();
}

class TestkitFamily final : public Family {
 public:
  std::string_view name() const override { return "testkit"; }
  ModuleImage image() const override { return EmbeddedModuleImage(); }
  bool test_only() const override { return true; }
  std::vector<std::string> ops() const override { return {"store_u64", "noop", "stream_read"}; }
  void RegisterHostKernels(HostKernelRegistry& registry) const override {
    testkit::RegisterHostKernels(registry);
  }

  absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const override {
    GPUOPS_ASSIGN_OR_RETURN(TestKernels kernels, TestKernels::Load(gpu));
    for (const std::string& op : ops()) {
      const std::string name = StrCat("testkit.", op);
      if (options.include && !options.include(name)) continue;
      CheckReport report{.op = name};
      absl::StatusOr<std::string> problem = CheckOp(gpu, kernels, op, options.seed);
      if (!problem.ok()) {
        report.line = StrCat(op, "  ERROR ", problem.status().message());
      } else if (!problem->empty()) {
        report.line = StrCat(op, "  FAIL: ", *problem);
      } else {
        report.line = StrCat(op, "  PASS");
        report.verdict = CheckReport::Verdict::kPass;
      }
      if (options.on_case) options.on_case(report);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<size_t> CountChecks(GpuBackend&, const CheckOptions& options) const override {
    size_t total = 0;
    for (const std::string& op : ops()) {
      if (!options.include || options.include(StrCat("testkit.", op))) ++total;
    }
    return total;
  }
};

}  // namespace

const Family& Unit() {
  static const auto* family = new TestkitFamily();
  return *family;
}

}  // namespace gpuops::ops::testkit
