// The slice of the HIP runtime API the HIP backend uses, declared here so that gpuops builds
// without ROCm and links nothing from it: libamdhip64.so is opened at run time (any major
// version: every symbol below has kept its C signature from ROCm 5 on) and every entry point is
// resolved by name through the X-macro table below. Values are the runtime ABI's
// (hip_runtime_api.h, ROCm 5.2, checked against the Debian package).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gpuops::hip {

using hipError_t = int;
using hipDevice_t = int;
using hipDeviceptr_t = void*;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipStream_t = struct ihipStream_t*;
using hipEvent_t = struct ihipEvent_t*;
using hipGraph_t = struct ihipGraph*;
using hipGraphExec_t = struct hipGraphExec*;
using hipGraphNode_t = struct hipGraphNode*;

inline constexpr hipError_t hipSuccess = 0;
inline constexpr hipError_t hipErrorInvalidValue = 1;
inline constexpr hipError_t hipErrorOutOfMemory = 2;
inline constexpr hipError_t hipErrorNotInitialized = 3;
inline constexpr hipError_t hipErrorDeinitialized = 4;
inline constexpr hipError_t hipErrorInsufficientDriver = 35;
inline constexpr hipError_t hipErrorInvalidDeviceFunction = 98;
inline constexpr hipError_t hipErrorNoDevice = 100;
inline constexpr hipError_t hipErrorInvalidDevice = 101;
inline constexpr hipError_t hipErrorInvalidImage = 200;
inline constexpr hipError_t hipErrorInvalidContext = 201;
inline constexpr hipError_t hipErrorNoBinaryForGpu = 209;
inline constexpr hipError_t hipErrorInvalidKernelFile = 218;
inline constexpr hipError_t hipErrorInvalidHandle = 400;
inline constexpr hipError_t hipErrorNotFound = 500;
inline constexpr hipError_t hipErrorIllegalAddress = 700;
inline constexpr hipError_t hipErrorLaunchOutOfResources = 701;
inline constexpr hipError_t hipErrorLaunchTimeOut = 702;
inline constexpr hipError_t hipErrorAssert = 710;
inline constexpr hipError_t hipErrorLaunchFailure = 719;
inline constexpr hipError_t hipErrorNotSupported = 801;
inline constexpr hipError_t hipErrorStreamCaptureUnsupported = 900;

// Errors after which the device's state is lost: every later call fails (ABI values).
bool IsStickyError(hipError_t r);

inline constexpr int hipDeviceAttributeL2CacheSize = 19;
inline constexpr int hipDeviceAttributeComputeCapabilityMajor = 23;
inline constexpr int hipDeviceAttributeMaxBlockDimX = 26;
inline constexpr int hipDeviceAttributeMaxBlockDimY = 27;
inline constexpr int hipDeviceAttributeMaxBlockDimZ = 28;
inline constexpr int hipDeviceAttributeMaxGridDimX = 29;
inline constexpr int hipDeviceAttributeMaxGridDimY = 30;
inline constexpr int hipDeviceAttributeMaxGridDimZ = 31;
inline constexpr int hipDeviceAttributeMaxThreadsPerBlock = 56;
inline constexpr int hipDeviceAttributeComputeCapabilityMinor = 61;
inline constexpr int hipDeviceAttributeMultiprocessorCount = 63;
inline constexpr int hipDeviceAttributeMaxSharedMemoryPerBlock = 74;
inline constexpr int hipDeviceAttributeWarpSize = 87;
inline constexpr unsigned hipStreamNonBlocking = 1;
inline constexpr int hipStreamCaptureModeThreadLocal = 1;

// hipGetDeviceProperties fills a struct whose layout changed between ROCm versions; the backend
// hands it a zeroed buffer at least this large and reads only the gcnArchName string from it.
inline constexpr size_t kDevicePropertiesBufferBytes = 16 * 1024;

// Every runtime entry point gpuops calls: X(name, required, return type, parameter list).
#define GPUOPS_HIP_RUNTIME_SYMBOLS(X)                                                              \
  X(hipInit, true, hipError_t, (unsigned flags))                                                   \
  X(hipDriverGetVersion, true, hipError_t, (int* version))                                         \
  X(hipRuntimeGetVersion, true, hipError_t, (int* version))                                        \
  X(hipGetErrorName, true, const char*, (hipError_t error))                                        \
  X(hipGetErrorString, true, const char*, (hipError_t error))                                      \
  X(hipGetDeviceCount, true, hipError_t, (int* count))                                             \
  X(hipSetDevice, true, hipError_t, (int ordinal))                                                 \
  X(hipDeviceGet, true, hipError_t, (hipDevice_t * device, int ordinal))                           \
  X(hipDeviceGetName, true, hipError_t, (char* name, int len, hipDevice_t device))                 \
  X(hipDeviceGetAttribute, true, hipError_t, (int* value, int attribute, int ordinal))             \
  X(hipDeviceTotalMem, true, hipError_t, (size_t * bytes, hipDevice_t device))                     \
  X(hipGetDeviceProperties, true, hipError_t, (void* properties, int ordinal))                     \
  X(hipDeviceSynchronize, true, hipError_t, ())                                                    \
  X(hipMalloc, true, hipError_t, (void** ptr, size_t bytes))                                       \
  X(hipFree, true, hipError_t, (void* ptr))                                                        \
  X(hipMemcpyHtoDAsync, true, hipError_t,                                                          \
    (hipDeviceptr_t dst, void* src, size_t bytes, hipStream_t stream))                             \
  X(hipMemcpyDtoHAsync, true, hipError_t,                                                          \
    (void* dst, hipDeviceptr_t src, size_t bytes, hipStream_t stream))                             \
  X(hipMemcpyDtoDAsync, true, hipError_t,                                                          \
    (hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes, hipStream_t stream))                    \
  X(hipMemsetD8Async, true, hipError_t,                                                            \
    (hipDeviceptr_t dst, unsigned char value, size_t count, hipStream_t stream))                   \
  X(hipModuleLoadData, true, hipError_t, (hipModule_t * module, const void* image))                \
  X(hipModuleUnload, true, hipError_t, (hipModule_t module))                                       \
  X(hipModuleGetFunction, true, hipError_t,                                                        \
    (hipFunction_t * fn, hipModule_t module, const char* name))                                    \
  X(hipModuleLaunchKernel, true, hipError_t,                                                       \
    (hipFunction_t fn, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,        \
     unsigned block_y, unsigned block_z, unsigned shared_bytes, hipStream_t stream, void** params, \
     void** extra))                                                                                \
  X(hipStreamCreateWithFlags, true, hipError_t, (hipStream_t * stream, unsigned flags))            \
  X(hipStreamDestroy, true, hipError_t, (hipStream_t stream))                                      \
  X(hipStreamSynchronize, true, hipError_t, (hipStream_t stream))                                  \
  X(hipEventCreate, true, hipError_t, (hipEvent_t * event))                                        \
  X(hipEventDestroy, true, hipError_t, (hipEvent_t event))                                         \
  X(hipEventRecord, true, hipError_t, (hipEvent_t event, hipStream_t stream))                      \
  X(hipEventSynchronize, true, hipError_t, (hipEvent_t event))                                     \
  X(hipEventElapsedTime, true, hipError_t, (float* ms, hipEvent_t start, hipEvent_t end))          \
  X(hipStreamBeginCapture, false, hipError_t, (hipStream_t stream, int mode))                      \
  X(hipStreamEndCapture, false, hipError_t, (hipStream_t stream, hipGraph_t * graph))              \
  X(hipGraphInstantiate, false, hipError_t,                                                        \
    (hipGraphExec_t * exec, hipGraph_t graph, hipGraphNode_t * error_node, char* log,              \
     size_t log_bytes))                                                                            \
  X(hipGraphLaunch, false, hipError_t, (hipGraphExec_t exec, hipStream_t stream))                  \
  X(hipGraphExecDestroy, false, hipError_t, (hipGraphExec_t exec))                                 \
  X(hipGraphDestroy, false, hipError_t, (hipGraph_t graph))

// Resolved entry points; optional ones (graphs) may be null.
struct RuntimeApi {
#define GPUOPS_HIP_DECLARE_FN(name, required, ret, params) ret(*name) params = nullptr;
  GPUOPS_HIP_RUNTIME_SYMBOLS(GPUOPS_HIP_DECLARE_FN)
#undef GPUOPS_HIP_DECLARE_FN
  int runtime_version = 0;  // e.g. 50221153
  std::string library;      // the path that loaded
};

// The process's HIP runtime, loaded and resolved once: kUnavailable naming every path tried and
// why when there is none (no library, a required symbol missing, hipInit failed). The library
// path is GPUOPS_HIP_RUNTIME when set, else libamdhip64.so in the usual places.
absl::StatusOr<const RuntimeApi*> LoadRuntime();

inline constexpr const char* kRuntimePathEnvVar = "GPUOPS_HIP_RUNTIME";

// "hipModuleLaunchKernel(common_fill_u16): hipErrorIllegalAddress (700): an illegal memory
// access was encountered", with the status code the design assigns to `result`.
absl::Status HipError(const RuntimeApi& api, hipError_t result, std::string_view call,
                      std::string_view kernel = {});

}  // namespace gpuops::hip
