// The control surface of the stand-in HIP runtime (libgpuops_hip_standin.so): a test points the
// HIP backend at the library with GPUOPS_HIP_RUNTIME, reaches these functions through dlopen of
// the same path, and so sees what the runtime was asked and makes chosen calls fail. The
// stand-in keeps device memory in host memory, loads clang offload bundles with gpuops' own
// code-object reader (the gfx90a object), assembles each launch's kernarg buffer from the
// kernel's metadata as the runtime does, records launches and runs no device code.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct GpuopsStandinLaunch {
  char kernel[128];
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  void* stream;
  // The caller's arguments placed at the offsets the code object's metadata gives (hidden
  // arguments left zero), as the runtime lays out the kernarg segment.
  uint32_t kernarg_bytes;
  uint8_t kernarg[1024];
};

// Back to one gfx90a device, no failures, no record.
void gpuops_standin_reset();
void gpuops_standin_set_device_count(int count);
// The next `times` calls of `symbol` ("hipMalloc") return `error` (times < 0: every call). A
// sticky error (700, 702, 710, 719) is returned once by `symbol`, then by every call after it
// until reset, as a runtime whose device faulted.
void gpuops_standin_fail(const char* symbol, int error, int times);
// How many times `symbol` was called since the last reset.
int gpuops_standin_calls(const char* symbol);
// Launches recorded since the last reset (direct ones and graph replays), and the i-th.
int gpuops_standin_launch_count();
int gpuops_standin_launch(int i, GpuopsStandinLaunch* out);  // 0 when i is out of range

}  // extern "C"
