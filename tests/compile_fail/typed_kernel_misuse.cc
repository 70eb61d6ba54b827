// Compiled (with -Werror=narrowing, as the project builds) by check_compile_fail.cmake once per
// GPUOPS_CASE: case 0 must compile, every other case must fail to compile with the diagnostic the
// driver expects.
#include <cstdint>

#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/typed_kernel.h"

namespace gpuops {

GPUOPS_KERNEL_ARGS(Args, (DevicePtr, p), (uint32_t, n), (float, x));
GPUOPS_KERNEL_ARGS(OtherArgs, (DevicePtr, p), (uint32_t, n), (float, x));
GPUOPS_KERNEL_ARGS(BadArgs, (DevicePtr, p), (double, x));

void Use(GpuBackend& gpu, const TypedKernel<Args>& kernel, DevicePtr p, int count) {
  const LaunchDims dims{{1, 1, 1}, {32, 1, 1}, 0};
#if GPUOPS_CASE == 0  // correct: compiles
  (void)kernel.Launch(gpu, dims, Args{.p = p, .n = 1, .x = 1.0f});
#elif GPUOPS_CASE == 1  // another kernel's argument struct
  (void)kernel.Launch(gpu, dims, OtherArgs{.p = p, .n = 1, .x = 1.0f});
#elif GPUOPS_CASE == 2  // a raw address where a DevicePtr is declared
  (void)kernel.Launch(gpu, dims, Args{.p = p.address(), .n = 1, .x = 1.0f});
#elif GPUOPS_CASE == 3  // a signed int where uint32_t is declared
  (void)kernel.Launch(gpu, dims, Args{.p = p, .n = count, .x = 1.0f});
#elif GPUOPS_CASE == 4  // a field of a type no kernel argument has
  (void)TypedKernel<BadArgs>::Bind(KernelHandle());
#elif GPUOPS_CASE == 5  // a launch request not built by KernelLaunch
  LaunchRequest request(KernelHandle(), {}, {}, 0, {}, {}, nullptr, false);
#endif
  (void)count;
}

}  // namespace gpuops
