// gpuops trace: the launches an op makes for a shape, recorded by the mock without executing.
// JSON output follows tools/gpuops/trace.schema.json.
#include <cstdio>
#include <map>
#include <optional>

#include "commands.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/str.h"
#include "json_writer.h"
#include "ops/dense/dense_gemm.h"

namespace gpuops::tools {
namespace {

std::string ArgValue(const mock::RecordedArg& a) {
  switch (a.kind) {
    case ArgKind::kPtr:
      return StrCat("0x", Hex(a.u64()));
    case ArgKind::kU32:
      return StrCat(a.u32());
    case ArgKind::kI32:
      return StrCat(a.i32());
    case ArgKind::kU64:
      return StrCat(a.u64());
    case ArgKind::kF32:
      return StrCat(a.f32());
    case ArgKind::kBytes: {
      std::string hex;
      for (std::byte b : a.bytes) {
        char buf[4];
        std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(b));
        hex += buf;
      }
      return hex;
    }
  }
  return "?";
}

}  // namespace

int RunTrace(const TraceOptions& o) {
  std::optional<ops::dense::Variant> variant;
  if (o.op.starts_with("dense.")) {
    auto v = ops::dense::ParseVariant(o.op.substr(6));
    if (!v.ok()) {
      std::fprintf(stderr, "gpuops trace: %s\n", std::string(v.status().message()).c_str());
      return kExitUsage;
    }
    variant = *v;
  } else if (o.op != "dense") {
    std::fprintf(stderr, "gpuops trace: unknown op '%s' (trace takes dense or dense.<variant>)\n",
                 o.op.c_str());
    return kExitUsage;
  }
  if (o.m == 0 || o.n == 0 || o.k == 0) {
    std::fprintf(stderr, "gpuops trace: bad shape m=%u n=%u k=%u (each must be >= 1)\n", o.m, o.n,
                 o.k);
    return kExitUsage;
  }
  mock::RecordingBackend::Options mock_options;
  mock_options.execute_host_kernels = false;
  mock::RecordingBackend gpu(mock_options);
  auto dense = ops::dense::DenseGemm::Load(gpu);
  if (!dense.ok()) {
    std::fprintf(stderr, "gpuops trace: %s\n", std::string(dense.status().message()).c_str());
    return kExitFailed;
  }
  // Stand-in buffers: the mock records launches without executing, so sizes do not matter.
  ops::dense::GemmArgs args{
      .m = o.m, .n = o.n, .k = o.k, .ldb = o.ldb, .scale = o.scale, .splits = o.splits};
  std::map<uint64_t, std::string> buffers;
  for (auto [ptr, name] :
       {std::pair{&args.a, "a"}, {&args.b, "b"}, {&args.c, "c"}, {&args.workspace, "workspace"}}) {
    auto p = gpu.Alloc(256);
    *ptr = *p;
    buffers[p->address()] = name;
  }
  // The dispatcher is traced as a caller that passes the workspace it asks for (GemmWorkspaceBytes).
  args.workspace_bytes = dense->GemmWorkspaceBytes(args);
  auto picked = variant ? absl::StatusOr<ops::dense::Variant>(*variant) : dense->Pick(args);
  absl::Status s = picked.ok() ? dense->Run(*picked, args) : picked.status();
  if (!s.ok()) {
    std::fprintf(stderr, "gpuops trace: %s cannot run m=%u n=%u k=%u ldb=%u: %s\n", o.op.c_str(),
                 o.m, o.n, o.k, o.ldb, std::string(s.message()).c_str());
    return kExitUsage;
  }
  auto module = gpu.LoadModule(ops::dense::EmbeddedModuleImage());
  const auto records = gpu.launches();
  if (o.json) {
    JsonWriter w;
    w.BeginObject();
    w.Key("op").String(o.op);
    w.Key("variant").String(ops::dense::Spec(*picked).name);
    w.Key("shape").BeginObject().Key("m").Uint(o.m).Key("n").Uint(o.n).Key("k").Uint(o.k);
    w.Key("ldb").Uint(o.ldb == 0 ? o.k : o.ldb).EndObject();
    w.Key("backend").String("mock");
    w.Key("launches").BeginArray();
    for (const mock::LaunchRecord& r : records) {
      const KernelHandle kernel = *gpu.GetKernel(*module, r.kernel);
      w.BeginObject();
      w.Key("sequence").Uint(r.sequence);
      w.Key("kernel").String(r.kernel);
      w.Key("module").String(r.module);
      w.Key("grid").BeginArray().Uint(r.grid.x).Uint(r.grid.y).Uint(r.grid.z).EndArray();
      w.Key("block").BeginArray().Uint(r.block.x).Uint(r.block.y).Uint(r.block.z).EndArray();
      w.Key("shared_mem_bytes").Uint(r.shared_mem_bytes);
      w.Key("stream").Uint(r.stream.id);
      w.Key("args").BeginArray();
      for (size_t i = 0; i < r.args.size(); ++i) {
        const mock::RecordedArg& a = r.args[i];
        w.BeginObject();
        w.Key("name").String(kernel.info()->signature.params[i].name);
        w.Key("kind").String(ToString(a.kind));
        w.Key("bytes").Uint(a.bytes.size());
        switch (a.kind) {
          case ArgKind::kU32:
          case ArgKind::kU64:
            w.Key("value").Uint(a.u64() & (a.kind == ArgKind::kU32 ? 0xffffffffull : ~0ull));
            break;
          case ArgKind::kI32:
            w.Key("value").Int(a.i32());
            break;
          case ArgKind::kF32:
            w.Key("value").Number(a.f32());
            break;
          default:
            w.Key("value").String(ArgValue(a));
        }
        if (a.kind == ArgKind::kPtr) {
          w.Key("buffer").String(buffers[a.u64() - a.offset]);
          w.Key("offset").Uint(a.offset);
        }
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  std::printf("%s m=%u n=%u k=%u ldb=%u -> variant %s, %zu launch(es):\n", o.op.c_str(), o.m, o.n,
              o.k, o.ldb == 0 ? o.k : o.ldb, std::string(ops::dense::Spec(*picked).name).c_str(),
              records.size());
  for (const mock::LaunchRecord& r : records) {
    const KernelHandle kernel = *gpu.GetKernel(*module, r.kernel);
    std::printf("#%llu %s grid %s block %s shared %u bytes\n",
                static_cast<unsigned long long>(r.sequence), r.kernel.c_str(),
                ToString(r.grid).c_str(), ToString(r.block).c_str(), r.shared_mem_bytes);
    for (size_t i = 0; i < r.args.size(); ++i) {
      const mock::RecordedArg& a = r.args[i];
      std::printf(
          "    %-10s %-5s %s%s\n", kernel.info()->signature.params[i].name.c_str(),
          std::string(ToString(a.kind)).c_str(), ArgValue(a).c_str(),
          a.kind == ArgKind::kPtr ? StrCat(" (", buffers[a.u64() - a.offset], ")").c_str() : "");
    }
  }
  return kExitOk;
}

}  // namespace gpuops::tools
