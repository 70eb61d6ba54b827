#include "cublaslt.h"

#include <vector>

#include "gpuops/runtime/dynamic_library.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::tools {
namespace {

// The slice of the cuBLASLt ABI used here (cublasLt.h, CUDA 12/13).
using Status = int;
using Handle = struct LtContext*;
using MatmulDesc = struct LtMatmulDesc*;
using Layout = struct LtLayout*;
using Preference = struct LtPreference*;
struct Algo {
  uint64_t data[8];
};
struct HeuristicResult {
  Algo algo;
  size_t workspace_size;
  Status state;
  float waves_count;
  int reserved[4];
};
constexpr int kComputeF32 = 68;       // CUBLAS_COMPUTE_32F
constexpr int kDataF32 = 0;           // CUDA_R_32F
constexpr int kDataBF16 = 14;         // CUDA_R_16BF
constexpr int kDescTransA = 3;        // CUBLASLT_MATMUL_DESC_TRANSA
constexpr int kDescTransB = 4;        // CUBLASLT_MATMUL_DESC_TRANSB
constexpr int kPrefMaxWorkspace = 1;  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
constexpr int kOpN = 0;
constexpr int kOpT = 1;

#define GPUOPS_CUBLASLT_SYMBOLS(X)                                                                 \
  X(cublasLtCreate, Status, (Handle*))                                                             \
  X(cublasLtDestroy, Status, (Handle))                                                             \
  X(cublasLtGetStatusString, const char*, (Status))                                                \
  X(cublasLtMatmulDescCreate, Status, (MatmulDesc*, int, int))                                     \
  X(cublasLtMatmulDescDestroy, Status, (MatmulDesc))                                               \
  X(cublasLtMatmulDescSetAttribute, Status, (MatmulDesc, int, const void*, size_t))                \
  X(cublasLtMatrixLayoutCreate, Status, (Layout*, int, uint64_t, uint64_t, int64_t))               \
  X(cublasLtMatrixLayoutDestroy, Status, (Layout))                                                 \
  X(cublasLtMatmulPreferenceCreate, Status, (Preference*))                                         \
  X(cublasLtMatmulPreferenceDestroy, Status, (Preference))                                         \
  X(cublasLtMatmulPreferenceSetAttribute, Status, (Preference, int, const void*, size_t))          \
  X(cublasLtMatmulAlgoGetHeuristic, Status,                                                        \
    (Handle, MatmulDesc, Layout, Layout, Layout, Layout, Preference, int, HeuristicResult*, int*)) \
  X(cublasLtMatmul, Status,                                                                        \
    (Handle, MatmulDesc, const void*, const void*, Layout, const void*, Layout, const void*,       \
     const void*, Layout, void*, Layout, const Algo*, void*, size_t, void*))

struct Api {
#define GPUOPS_CUBLASLT_DECLARE(name, ret, params) ret(*name) params = nullptr;
  GPUOPS_CUBLASLT_SYMBOLS(GPUOPS_CUBLASLT_DECLARE)
#undef GPUOPS_CUBLASLT_DECLARE
};

absl::Status Check(const Api& api, Status s, std::string_view call) {
  if (s == 0) return absl::OkStatus();
  const char* text = api.cublasLtGetStatusString != nullptr ? api.cublasLtGetStatusString(s) : "";
  return absl::InternalError(StrCat(call, ": cuBLAS status ", s, " (", text, ")"));
}

// Every symbol of the table from `lib`; kUnavailable naming a missing one.
absl::Status Resolve(const DynamicLibrary& lib, Api& api) {
  std::string missing;
#define GPUOPS_CUBLASLT_RESOLVE(name, ret, params)                    \
  api.name = reinterpret_cast<decltype(api.name)>(lib.Symbol(#name)); \
  if (api.name == nullptr) missing = #name;
  GPUOPS_CUBLASLT_SYMBOLS(GPUOPS_CUBLASLT_RESOLVE)
#undef GPUOPS_CUBLASLT_RESOLVE
  if (!missing.empty()) return absl::UnavailableError(StrCat("no ", missing));
  return absl::OkStatus();
}

class Gemm final : public CublasLtGemm {
 public:
  Gemm(const Api& api, Handle handle) : api_(api), handle_(handle) {}
  ~Gemm() override {
    if (desc_ != nullptr) api_.cublasLtMatmulDescDestroy(desc_);
    for (Layout l : {a_, b_, c_}) {
      if (l != nullptr) api_.cublasLtMatrixLayoutDestroy(l);
    }
  }

  absl::Status Init(uint32_t m, uint32_t n, uint32_t k, uint32_t ldb, DevicePtr workspace,
                    uint64_t workspace_bytes) {
    workspace_ = workspace;
    workspace_bytes_ = workspace_bytes;
    GPUOPS_RETURN_IF_ERROR(Check(api_, api_.cublasLtMatmulDescCreate(&desc_, kComputeF32, kDataF32),
                                 "cublasLtMatmulDescCreate"));
    const int trans_a = kOpT;
    const int trans_b = kOpN;
    GPUOPS_RETURN_IF_ERROR(Check(
        api_, api_.cublasLtMatmulDescSetAttribute(desc_, kDescTransA, &trans_a, sizeof(trans_a)),
        "cublasLtMatmulDescSetAttribute(TRANSA)"));
    GPUOPS_RETURN_IF_ERROR(Check(
        api_, api_.cublasLtMatmulDescSetAttribute(desc_, kDescTransB, &trans_b, sizeof(trans_b)),
        "cublasLtMatmulDescSetAttribute(TRANSB)"));
    // cuBLAS's A is our weight B, stored K x N column-major (ld = ldb); its B is our
    // activations A, stored K x M (ld = K); C is N x M (ld = N).
    GPUOPS_RETURN_IF_ERROR(Check(api_, api_.cublasLtMatrixLayoutCreate(&a_, kDataBF16, k, n, ldb),
                                 "cublasLtMatrixLayoutCreate(A)"));
    GPUOPS_RETURN_IF_ERROR(Check(api_, api_.cublasLtMatrixLayoutCreate(&b_, kDataBF16, k, m, k),
                                 "cublasLtMatrixLayoutCreate(B)"));
    GPUOPS_RETURN_IF_ERROR(Check(api_, api_.cublasLtMatrixLayoutCreate(&c_, kDataBF16, n, m, n),
                                 "cublasLtMatrixLayoutCreate(C)"));
    Preference pref = nullptr;
    GPUOPS_RETURN_IF_ERROR(
        Check(api_, api_.cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate"));
    const uint64_t max_ws = workspace_bytes;
    api_.cublasLtMatmulPreferenceSetAttribute(pref, kPrefMaxWorkspace, &max_ws, sizeof(max_ws));
    HeuristicResult result{};
    int found = 0;
    const Status s = api_.cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, pref, 1,
                                                         &result, &found);
    api_.cublasLtMatmulPreferenceDestroy(pref);
    GPUOPS_RETURN_IF_ERROR(Check(api_, s, "cublasLtMatmulAlgoGetHeuristic"));
    if (found == 0) {
      return absl::NotFoundError(
          StrCat("cuBLASLt has no algorithm for m=", m, " n=", n, " k=", k, " ldb=", ldb));
    }
    algo_ = result.algo;
    return absl::OkStatus();
  }

  absl::Status Run(DevicePtr a, DevicePtr b, DevicePtr c, StreamHandle stream) override {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    auto p = [](DevicePtr d) { return reinterpret_cast<void*>(d.address()); };
    return Check(api_,
                 api_.cublasLtMatmul(handle_, desc_, &alpha, p(b), a_, p(a), b_, &beta, p(c), c_,
                                     p(c), c_, &algo_, p(workspace_), workspace_bytes_,
                                     reinterpret_cast<void*>(stream.id)),
                 "cublasLtMatmul");
  }

 private:
  const Api& api_;
  Handle handle_;
  MatmulDesc desc_ = nullptr;
  Layout a_ = nullptr;
  Layout b_ = nullptr;
  Layout c_ = nullptr;
  Algo algo_{};
  DevicePtr workspace_;
  uint64_t workspace_bytes_ = 0;
};

class Library final : public CublasLt {
 public:
  Library(Api api, Handle handle, std::string path)
      : api_(api), handle_(handle), path_(std::move(path)) {}
  ~Library() override { api_.cublasLtDestroy(handle_); }

  absl::StatusOr<std::unique_ptr<CublasLtGemm>> Plan(uint32_t m, uint32_t n, uint32_t k,
                                                     uint32_t ldb, DevicePtr workspace,
                                                     uint64_t workspace_bytes) override {
    auto gemm = std::make_unique<Gemm>(api_, handle_);
    GPUOPS_RETURN_IF_ERROR(gemm->Init(m, n, k, ldb, workspace, workspace_bytes));
    return std::unique_ptr<CublasLtGemm>(std::move(gemm));
  }
  std::string library() const override { return path_; }

 private:
  Api api_;
  Handle handle_;
  std::string path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CublasLt>> CublasLt::Load() {
  Api api;
  GPUOPS_ASSIGN_OR_RETURN(
      DynamicLibrary library,
      DynamicLibrary::Open("cuBLASLt not found", "GPUOPS_CUBLASLT",
                           {"libcublasLt.so.13", "/usr/local/cuda/lib64/libcublasLt.so.13",
                            "/usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.13",
                            "libcublasLt.so.12", "/usr/local/cuda/lib64/libcublasLt.so.12"},
                           [&](const DynamicLibrary& lib) { return Resolve(lib, api); }));
  Handle handle = nullptr;
  GPUOPS_RETURN_IF_ERROR(Check(api, api.cublasLtCreate(&handle), "cublasLtCreate"));
  return std::unique_ptr<CublasLt>(new Library(api, handle, library.path()));
}

}  // namespace gpuops::tools
