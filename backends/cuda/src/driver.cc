#include <memory>
#include <vector>

#include "gpuops/backends/runtime_error.h"
#include "gpuops/cuda/driver_api.h"
#include "gpuops/runtime/dynamic_library.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::cuda {
namespace {

using GetProcAddress = CUresult (*)(const char* symbol, void** fn, int version, uint64_t flags,
                                    int* query);

// Resolves every symbol of the table; a required one missing is a reason to reject the library.
absl::Status Resolve(GetProcAddress gpa, DriverApi& api) {
#define GPUOPS_CUDA_RESOLVE(name, version, required, params)                                   \
  {                                                                                            \
    void* fn = nullptr;                                                                        \
    int query = -1;                                                                            \
    const CUresult r = gpa(#name, &fn, version, /*CU_GET_PROC_ADDRESS_DEFAULT=*/0, &query);    \
    if (r == CUDA_SUCCESS && query == CU_GET_PROC_ADDRESS_SUCCESS && fn != nullptr) {          \
      api.name = reinterpret_cast<decltype(api.name)>(fn);                                     \
    } else if (required) {                                                                     \
      return absl::UnavailableError(StrCat("required symbol " #name " (API version ", version, \
                                           ") not found: cuGetProcAddress_v2 returned ", r,    \
                                           ", query result ", query));                         \
    }                                                                                          \
  }
  GPUOPS_CUDA_DRIVER_SYMBOLS(GPUOPS_CUDA_RESOLVE)
#undef GPUOPS_CUDA_RESOLVE
  return absl::OkStatus();
}

absl::StatusOr<const DriverApi*> Load() {
  auto api = std::make_unique<DriverApi>();
  GPUOPS_ASSIGN_OR_RETURN(
      DynamicLibrary library,
      DynamicLibrary::Open("cuda: no usable CUDA driver", kDriverPathEnvVar,
                           {"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                            "/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib64/libcuda.so.1"},
                           [&](const DynamicLibrary& lib) -> absl::Status {
                             auto gpa = reinterpret_cast<GetProcAddress>(
                                 lib.Symbol("cuGetProcAddress_v2"));
                             if (gpa == nullptr) {
                               return absl::UnavailableError(
                                   "no cuGetProcAddress_v2 (a driver older than CUDA 12.0)");
                             }
                             return Resolve(gpa, *api);
                           }));
  api->library = library.path();
  if (const CUresult r = api->cuInit(0); r != CUDA_SUCCESS) {
    // The library is a driver but unusable here (no device, a stub, a driver mismatch).
    return absl::UnavailableError(
        StrCat("cuda: ", library.path(), " loaded but ", CudaError(*api, r, "cuInit").message()));
  }
  api->cuDriverGetVersion(&api->driver_version);
  return api.release();  // lives for the process, like the library
}

}  // namespace

bool IsStickyError(CUresult r) {
  switch (r) {
    case 700:  // ILLEGAL_ADDRESS
    case 702:  // LAUNCH_TIMEOUT
    case 710:  // ASSERT
    case 714:  // HARDWARE_STACK_ERROR
    case 715:  // ILLEGAL_INSTRUCTION
    case 716:  // MISALIGNED_ADDRESS
    case 717:  // INVALID_ADDRESS_SPACE
    case 718:  // INVALID_PC
    case 719:  // LAUNCH_FAILED
      return true;
    default:
      return false;
  }
}

absl::StatusOr<const DriverApi*> LoadDriver() {
  static const auto* driver = new absl::StatusOr<const DriverApi*>(Load());
  return *driver;
}

absl::Status CudaError(const DriverApi& api, CUresult r, std::string_view call,
                       std::string_view kernel) {
  if (r == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (api.cuGetErrorString == nullptr || api.cuGetErrorString(r, &text) != CUDA_SUCCESS)
    text = nullptr;
  absl::StatusCode code = absl::StatusCode::kInternal;
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      code = absl::StatusCode::kResourceExhausted;
      break;
    case CUDA_ERROR_NOT_INITIALIZED:
    case 4:  // DEINITIALIZED
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_INSUFFICIENT_DRIVER:
    case 46:  // DEVICES_UNAVAILABLE
    case CUDA_ERROR_NO_DEVICE:
      code = absl::StatusCode::kUnavailable;
      break;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_DEVICE:
    case 201:  // INVALID_CONTEXT
    case CUDA_ERROR_INVALID_HANDLE:
      code = absl::StatusCode::kInvalidArgument;
      break;
    case 200:  // INVALID_IMAGE
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case 218:  // INVALID_PTX
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      code = absl::StatusCode::kFailedPrecondition;
      break;
    case CUDA_ERROR_NOT_FOUND:
      code = absl::StatusCode::kNotFound;
      break;
    default:
      if (r >= CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED && r < 1000) {
        code = absl::StatusCode::kFailedPrecondition;  // stream-capture misuse
      }
      break;
  }
  return RuntimeCallError(code, call, kernel, r, name, "CUDA error", text);
}

}  // namespace gpuops::cuda
