#include <memory>

#include "gpuops/backends/runtime_error.h"
#include "gpuops/hip/runtime_api.h"
#include "gpuops/runtime/dynamic_library.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::hip {
namespace {

// Resolves every symbol of the table; a required one missing is a reason to reject the library.
absl::Status Resolve(const DynamicLibrary& lib, RuntimeApi& api) {
#define GPUOPS_HIP_RESOLVE(name, required, ret, params)                 \
  {                                                                     \
    api.name = reinterpret_cast<decltype(api.name)>(lib.Symbol(#name)); \
    if (api.name == nullptr && required) {                              \
      return absl::UnavailableError("required symbol " #name            \
                                    " not found (not a HIP runtime, "   \
                                    "or one older than ROCm 5)");       \
    }                                                                   \
  }
  GPUOPS_HIP_RUNTIME_SYMBOLS(GPUOPS_HIP_RESOLVE)
#undef GPUOPS_HIP_RESOLVE
  return absl::OkStatus();
}

absl::StatusOr<const RuntimeApi*> Load() {
  auto api = std::make_unique<RuntimeApi>();
  GPUOPS_ASSIGN_OR_RETURN(
      DynamicLibrary library,
      DynamicLibrary::Open("hip: no usable HIP runtime", kRuntimePathEnvVar,
                           {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                            "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so",
                            "/opt/rocm/lib/libamdhip64.so.6", "/opt/rocm/lib/libamdhip64.so.5"},
                           [&](const DynamicLibrary& lib) { return Resolve(lib, *api); }));
  api->library = library.path();
  if (const hipError_t r = api->hipInit(0); r != hipSuccess) {
    // The library is a HIP runtime but unusable here (no device, no kernel driver).
    return absl::UnavailableError(
        StrCat("hip: ", library.path(), " loaded but ", HipError(*api, r, "hipInit").message()));
  }
  api->hipRuntimeGetVersion(&api->runtime_version);
  return api.release();  // lives for the process, like the library
}

}  // namespace

bool IsStickyError(hipError_t r) {
  switch (r) {
    case hipErrorIllegalAddress:
    case hipErrorLaunchTimeOut:
    case hipErrorAssert:
    case hipErrorLaunchFailure:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<const RuntimeApi*> LoadRuntime() {
  static const auto* runtime = new absl::StatusOr<const RuntimeApi*>(Load());
  return *runtime;
}

absl::Status HipError(const RuntimeApi& api, hipError_t r, std::string_view call,
                      std::string_view kernel) {
  if (r == hipSuccess) return absl::OkStatus();
  const char* name = api.hipGetErrorName != nullptr ? api.hipGetErrorName(r) : nullptr;
  const char* text = api.hipGetErrorString != nullptr ? api.hipGetErrorString(r) : nullptr;
  absl::StatusCode code = absl::StatusCode::kInternal;
  switch (r) {
    case hipErrorOutOfMemory:
    case hipErrorLaunchOutOfResources:
      code = absl::StatusCode::kResourceExhausted;
      break;
    case hipErrorNotInitialized:
    case hipErrorDeinitialized:
    case hipErrorInsufficientDriver:
    case hipErrorNoDevice:
      code = absl::StatusCode::kUnavailable;
      break;
    case hipErrorInvalidValue:
    case hipErrorInvalidDevice:
    case hipErrorInvalidContext:
    case hipErrorInvalidHandle:
    case hipErrorInvalidDeviceFunction:
      code = absl::StatusCode::kInvalidArgument;
      break;
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidKernelFile:
    case hipErrorNotSupported:
      code = absl::StatusCode::kFailedPrecondition;
      break;
    case hipErrorNotFound:
      code = absl::StatusCode::kNotFound;
      break;
    default:
      if (r >= hipErrorStreamCaptureUnsupported && r < 999) {
        code = absl::StatusCode::kFailedPrecondition;  // stream-capture misuse
      }
      break;
  }
  return RuntimeCallError(code, call, kernel, r, name, "HIP error", text);
}

}  // namespace gpuops::hip
