// Compiled by check_compile_fail.cmake once per GPUOPS_CASE: case 0 must compile, every other
// case must fail to compile with the diagnostic the driver expects.
#include <cstdint>

#include "gpuops/runtime/kernel_def.h"

namespace gpuops {

using Def = KernelDef<param::Ptr, param::U32, param::F32>;
inline constexpr Def kDef{"k"};

void Use(KernelLaunch& launch, DevicePtr p) {
#if GPUOPS_CASE == 0  // correct: compiles
  kDef.Bind(launch, p, uint32_t{1}, 1.0f);
#elif GPUOPS_CASE == 1  // one argument too few
  kDef.Bind(launch, p, uint32_t{1});
#elif GPUOPS_CASE == 2  // one argument too many
  kDef.Bind(launch, p, uint32_t{1}, 1.0f, 2.0f);
#elif GPUOPS_CASE == 3  // int where uint32_t is declared
  kDef.Bind(launch, p, 1, 1.0f);
#elif GPUOPS_CASE == 4  // arguments swapped
  kDef.Bind(launch, p, 1.0f, uint32_t{1});
#elif GPUOPS_CASE == 5  // raw address where a DevicePtr is declared
  kDef.Bind(launch, p.address(), uint32_t{1}, 1.0f);
#endif
}

}  // namespace gpuops
