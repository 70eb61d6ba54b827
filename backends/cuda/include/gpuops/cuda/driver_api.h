// The slice of the CUDA driver API the CUDA backend uses, declared here so that gpuops builds
// without the CUDA toolkit and links nothing from the driver: libcuda.so.1 is opened at run time
// and every entry point is resolved through cuGetProcAddress_v2 at the API version pinned in the
// table below. Values are the driver ABI's (cuda.h, CUDA 12/13).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gpuops::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;
struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};
// cuLaunchKernelEx's configuration (cuda.h's CUlaunchAttribute and CUlaunchConfig): an attribute
// is its 4-byte id, padding to 8, and a 64-byte value union (8-byte aligned).
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union alignas(8) {
    char bytes[64];
    int programmatic_stream_serialization_allowed;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72);
struct CUlaunchConfig {
  unsigned grid_x, grid_y, grid_z;
  unsigned block_x, block_y, block_z;
  unsigned shared_bytes;
  CUstream stream;
  CUlaunchAttribute* attrs;
  unsigned num_attrs;
};
inline constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_INSUFFICIENT_DRIVER = 35;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
inline constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
inline constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
inline constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
inline constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
inline constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;
inline constexpr CUresult CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900;

// Errors after which the context is unusable: every later call fails (ABI values).
bool IsStickyError(CUresult r);

inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
inline constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
inline constexpr int CU_GET_PROC_ADDRESS_SUCCESS = 0;

// Every driver entry point gpuops calls: X(name, API version, required, parameter list).
// Optional symbols may be missing from older drivers; the backend checks before use.
#define GPUOPS_CUDA_DRIVER_SYMBOLS(X)                                                            \
  X(cuInit, 12000, true, (unsigned flags))                                                       \
  X(cuDriverGetVersion, 12000, true, (int* version))                                             \
  X(cuGetErrorName, 12000, true, (CUresult error, const char** name))                            \
  X(cuGetErrorString, 12000, true, (CUresult error, const char** text))                          \
  X(cuDeviceGetCount, 12000, true, (int* count))                                                 \
  X(cuDeviceGet, 12000, true, (CUdevice * device, int ordinal))                                  \
  X(cuDeviceGetName, 12000, true, (char* name, int len, CUdevice device))                        \
  X(cuDeviceGetAttribute, 12000, true, (int* value, int attribute, CUdevice device))             \
  X(cuDeviceTotalMem, 12000, true, (size_t * bytes, CUdevice device))                            \
  X(cuDevicePrimaryCtxRetain, 12000, true, (CUcontext * ctx, CUdevice device))                   \
  X(cuDevicePrimaryCtxRelease, 12000, true, (CUdevice device))                                   \
  X(cuCtxSetCurrent, 12000, true, (CUcontext ctx))                                               \
  X(cuCtxSynchronize, 12000, true, ())                                                           \
  X(cuMemAlloc, 12000, true, (CUdeviceptr * ptr, size_t bytes))                                  \
  X(cuMemFree, 12000, true, (CUdeviceptr ptr))                                                   \
  X(cuMemcpyHtoDAsync, 12000, true,                                                              \
    (CUdeviceptr dst, const void* src, size_t bytes, CUstream stream))                           \
  X(cuMemcpyDtoHAsync, 12000, true, (void* dst, CUdeviceptr src, size_t bytes, CUstream stream)) \
  X(cuMemcpyDtoDAsync, 12000, true,                                                              \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                           \
  X(cuMemsetD8Async, 12000, true,                                                                \
    (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))                       \
  X(cuModuleLoadData, 12000, true, (CUmodule * module, const void* image))                       \
  X(cuModuleUnload, 12000, true, (CUmodule module))                                              \
  X(cuModuleGetFunction, 12000, true, (CUfunction * fn, CUmodule module, const char* name))      \
  X(cuFuncSetAttribute, 12000, true, (CUfunction fn, int attribute, int value))                  \
  X(cuFuncGetParamInfo, 12040, false,                                                            \
    (CUfunction fn, size_t index, size_t * offset, size_t * size))                               \
  X(cuLaunchKernel, 12000, true,                                                                 \
    (CUfunction fn, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,         \
     unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream, void** params,  \
     void** extra))                                                                              \
  X(cuLaunchKernelEx, 12000, false,                                                              \
    (const CUlaunchConfig* config, CUfunction fn, void** params, void** extra))                  \
  X(cuStreamCreate, 12000, true, (CUstream * stream, unsigned flags))                            \
  X(cuStreamDestroy, 12000, true, (CUstream stream))                                             \
  X(cuStreamSynchronize, 12000, true, (CUstream stream))                                         \
  X(cuEventCreate, 12000, true, (CUevent * event, unsigned flags))                               \
  X(cuEventDestroy, 12000, true, (CUevent event))                                                \
  X(cuEventRecord, 12000, true, (CUevent event, CUstream stream))                                \
  X(cuEventSynchronize, 12000, true, (CUevent event))                                            \
  X(cuEventElapsedTime, 12000, true, (float* ms, CUevent start, CUevent end))                    \
  X(cuStreamBeginCapture, 12000, true, (CUstream stream, int mode))                              \
  X(cuStreamEndCapture, 12000, true, (CUstream stream, CUgraph * graph))                         \
  X(cuGraphInstantiateWithFlags, 12000, true,                                                    \
    (CUgraphExec * exec, CUgraph graph, unsigned long long flags))                               \
  X(cuGraphLaunch, 12000, true, (CUgraphExec exec, CUstream stream))                             \
  X(cuGraphExecDestroy, 12000, true, (CUgraphExec exec))                                         \
  X(cuGraphDestroy, 12000, true, (CUgraph graph))                                                \
  X(cuTensorMapEncodeTiled, 12000, false,                                                        \
    (CUtensorMap * map, int data_type, uint32_t rank, void* address, const uint64_t* dims,       \
     const uint64_t* strides, const uint32_t* box, const uint32_t* element_strides,              \
     int interleave, int swizzle, int l2_promotion, int oob_fill))

// Resolved entry points; optional ones may be null.
struct DriverApi {
#define GPUOPS_CUDA_DECLARE_FN(name, version, required, params) CUresult(*name) params = nullptr;
  GPUOPS_CUDA_DRIVER_SYMBOLS(GPUOPS_CUDA_DECLARE_FN)
#undef GPUOPS_CUDA_DECLARE_FN
  int driver_version = 0;  // e.g. 13000
  std::string library;     // the path that loaded
};

// The process's driver, loaded and resolved once: kUnavailable naming every path tried and why
// when there is none (no library, no cuGetProcAddress_v2, a required symbol missing, cuInit
// failed). The library path is GPUOPS_CUDA_DRIVER when set, else the usual libcuda.so.1 places.
absl::StatusOr<const DriverApi*> LoadDriver();

inline constexpr const char* kDriverPathEnvVar = "GPUOPS_CUDA_DRIVER";

// "cuLaunchKernel(dense_gemm_bf16_tc): CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory
// access was encountered", with the status code the design assigns to `result`.
absl::Status CudaError(const DriverApi& api, CUresult result, std::string_view call,
                       std::string_view kernel = {});

}  // namespace gpuops::cuda
