// cuBLASLt, opened at run time, as the baseline `gpuops perf` measures against. A dependency of
// the tool only: the library never touches it, and builds without the CUDA toolkit still have
// the tool (perf then reports cuBLASLt unavailable).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gpuops/runtime/types.h"

namespace gpuops::tools {

// C[M,N] = A[M,K] · B[N,K]ᵀ row-major in BF16 with FP32 compute, as cuBLAS sees it column-major:
// Cᵀ[N,M] = op_T(B)[N,K] · Aᵀ[K,M] (cublasGemmEx(OP_T, OP_N, N, M, K) in the older API).
class CublasLtGemm {
 public:
  virtual ~CublasLtGemm() = default;
  // ldb: B's row stride in elements (>= K).
  virtual absl::Status Run(DevicePtr a, DevicePtr b, DevicePtr c, StreamHandle stream) = 0;
};

class CublasLt {
 public:
  // The library from GPUOPS_CUBLASLT, else the usual libcublasLt.so.13 / .12 places; kUnavailable
  // naming every path tried.
  static absl::StatusOr<std::unique_ptr<CublasLt>> Load();
  virtual ~CublasLt() = default;
  // A plan for one shape, with the best heuristic algorithm and `workspace` of `workspace_bytes`.
  virtual absl::StatusOr<std::unique_ptr<CublasLtGemm>> Plan(uint32_t m, uint32_t n, uint32_t k,
                                                             uint32_t ldb, DevicePtr workspace,
                                                             uint64_t workspace_bytes) = 0;
  virtual std::string library() const = 0;
};

}  // namespace gpuops::tools
