#include "trace_format.h"

#include <cstdio>
#include <limits>
#include <map>

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "gpuops/runtime/tensor_map.h"

namespace gpuops::tools {
namespace {

// The buffer `address` points into, named by the trace ("b", "b +64"); empty when unknown.
std::string BufferOf(const RecordedTrace& t, uint64_t address) {
  auto it = t.result.buffers.upper_bound(address);
  if (it == t.result.buffers.begin()) return "";
  --it;
  const uint64_t offset = address - it->first;
  return offset == 0 ? it->second : StrCat(it->second, " +", offset);
}

std::string_view SwizzleName(TensorMapSwizzle s) {
  switch (s) {
    case TensorMapSwizzle::kNone:
      return "none";
    case TensorMapSwizzle::k32B:
      return "32B";
    case TensorMapSwizzle::k64B:
      return "64B";
    case TensorMapSwizzle::k128B:
      return "128B";
  }
  return "?";
}

std::string_view TypeName(TensorMapDataType t) {
  switch (t) {
    case TensorMapDataType::kU8:
      return "u8";
    case TensorMapDataType::kBF16:
      return "bf16";
    case TensorMapDataType::kF16:
      return "f16";
    case TensorMapDataType::kF32:
      return "f32";
  }
  return "?";
}

// A by-value argument: a tensor map (as the mock encodes them) decoded, anything else as hex.
std::string BytesValue(const RecordedTrace& t, const mock::RecordedArg& a) {
  if (a.bytes.size() == sizeof(TensorMapBytes)) {
    TensorMapBytes map;
    std::memcpy(map.bytes.data(), a.bytes.data(), map.bytes.size());
    if (auto d = DecodeHostTensorMap(map); d.ok()) {
      std::string dims;
      std::string box;
      for (uint32_t i = d->rank; i-- > 0;) {
        StrAppend(&dims, dims.empty() ? "" : "x", d->global_dims[i]);
        StrAppend(&box, box.empty() ? "" : "x", d->box_dims[i]);
      }
      const std::string buffer = BufferOf(t, d->global_address.address());
      return StrCat("tensor map ", TypeName(d->data_type), " ", dims, " (row stride ",
                    d->rank > 1 ? d->global_strides[1] : 0, " bytes) box ", box, " swizzle ",
                    SwizzleName(d->swizzle), " at 0x", Hex(d->global_address.address()),
                    buffer.empty() ? "" : StrCat(" (", buffer, ")"));
    }
  }
  std::string hex;
  for (std::byte b : a.bytes) {
    char buf[4];
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<unsigned>(b));
    hex += buf;
  }
  return hex;
}

std::string ArgValue(const RecordedTrace& t, const mock::RecordedArg& a) {
  switch (a.kind) {
    case ArgKind::kPtr: {
      const std::string buffer = BufferOf(t, a.u64());
      return StrCat("0x", Hex(a.u64()), buffer.empty() ? "" : StrCat(" (", buffer, ")"));
    }
    case ArgKind::kU32:
      return StrCat(a.u32());
    case ArgKind::kI32:
      return StrCat(a.i32());
    case ArgKind::kU64:
      return StrCat(a.u64());
    case ArgKind::kF32:
      return StrCat(a.f32());
    case ArgKind::kBytes:
      return BytesValue(t, a);
  }
  return "?";
}

std::string Params(const ops::ProblemParams& params) {
  return StrJoin(params, " ",
                 [](std::string* out, const auto& p) { StrAppend(out, p.first, "=", p.second); });
}

}  // namespace

absl::StatusOr<RecordedTrace> RecordTrace(const ops::Family& family, std::string_view op,
                                          const ops::ProblemParams& params) {
  mock::RecordingBackend::Options options;
  options.execute_host_kernels = false;
  // Nothing executes, so allocations cost address space only (the shadow pages are never
  // touched): no byte budget, so a problem's whole buffers can be allocated (TraceBuffer); one the
  // host cannot map at all falls back to a stand-in.
  options.memory_limit_bytes = std::numeric_limits<uint64_t>::max();
  mock::RecordingBackend gpu(options);
  RecordedTrace trace;
  trace.op = op.empty() ? std::string(family.name()) : StrCat(family.name(), ".", op);
  trace.params = params;
  GPUOPS_ASSIGN_OR_RETURN(trace.result, family.Trace(gpu, op, params));
  trace.launches = gpu.launches();
  // Parameter names from the family's compiled signatures, as the mock loaded them.
  GPUOPS_ASSIGN_OR_RETURN(ModuleHandle module, gpu.LoadModule(family.image()));
  for (const mock::LaunchRecord& r : trace.launches) {
    GPUOPS_ASSIGN_OR_RETURN(KernelHandle kernel, gpu.GetKernel(module, r.kernel));
    std::vector<std::string> names;
    for (const KernelParam& p : kernel.info()->signature.params) names.push_back(p.name);
    names.resize(r.args.size(), "?");
    trace.param_names.push_back(std::move(names));
  }
  return trace;
}

std::string TraceText(const RecordedTrace& t) {
  const size_t n = t.launches.size();
  std::string out = StrCat(t.op, " ", Params(t.params), " -> variant ", t.result.variant,
                           t.result.plan.empty() ? "" : StrCat(" (", t.result.plan, ")"), ", ", n,
                           n == 1 ? " launch:\n" : " launches:\n");
  for (size_t l = 0; l < n; ++l) {
    const mock::LaunchRecord& r = t.launches[l];
    StrAppend(&out, "#", r.sequence, " ", r.kernel, " grid ", ToString(r.grid), " block ",
              ToString(r.block), " shared ", r.shared_mem_bytes, " bytes",
              r.overlaps_previous ? ", overlaps the previous launch" : "", "\n");
    for (size_t i = 0; i < r.args.size(); ++i) {
      char head[64];
      std::snprintf(head, sizeof(head), "    %-10s %-5s ", t.param_names[l][i].c_str(),
                    std::string(ToString(r.args[i].kind)).c_str());
      StrAppend(&out, head, ArgValue(t, r.args[i]), "\n");
    }
  }
  return out;
}

nlohmann::json TraceJson(const RecordedTrace& t) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : t.params) params[name] = value;
  nlohmann::json launches = nlohmann::json::array();
  for (size_t l = 0; l < t.launches.size(); ++l) {
    const mock::LaunchRecord& r = t.launches[l];
    nlohmann::json args = nlohmann::json::array();
    for (size_t i = 0; i < r.args.size(); ++i) {
      const mock::RecordedArg& a = r.args[i];
      nlohmann::json arg = {{"name", t.param_names[l][i]},
                            {"kind", std::string(ToString(a.kind))},
                            {"bytes", a.bytes.size()}};
      switch (a.kind) {
        case ArgKind::kU32:
          arg["value"] = a.u32();
          break;
        case ArgKind::kU64:
          arg["value"] = a.u64();
          break;
        case ArgKind::kI32:
          arg["value"] = a.i32();
          break;
        case ArgKind::kF32:
          arg["value"] = a.f32();
          break;
        case ArgKind::kPtr:
          arg["value"] = StrCat("0x", Hex(a.u64()));
          if (auto it = t.result.buffers.find(a.u64() - a.offset); it != t.result.buffers.end()) {
            arg["buffer"] = it->second;
            arg["offset"] = a.offset;
          }
          break;
        case ArgKind::kBytes:
          arg["value"] = BytesValue(t, a);
          break;
      }
      args.push_back(std::move(arg));
    }
    launches.push_back({{"sequence", r.sequence},
                        {"kernel", r.kernel},
                        {"module", r.module},
                        {"grid", {r.grid.x, r.grid.y, r.grid.z}},
                        {"block", {r.block.x, r.block.y, r.block.z}},
                        {"shared_mem_bytes", r.shared_mem_bytes},
                        {"overlaps_previous", r.overlaps_previous},
                        {"stream", r.stream.id},
                        {"args", std::move(args)}});
  }
  return {{"op", t.op},
          {"variant", t.result.variant},
          {"params", std::move(params)},
          {"plan", t.result.plan},
          {"backend", "mock"},
          {"launches", std::move(launches)}};
}

}  // namespace gpuops::tools
