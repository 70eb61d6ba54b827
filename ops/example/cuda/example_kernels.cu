// The example family's one kernel: y[i] = bf16(alpha * float(x[i])), 256 elements per block.
#include <cuda_bf16.h>

#include <cstdint>

extern "C" __global__ void __launch_bounds__(256)
    example_scale_bf16(__nv_bfloat16* y, const __nv_bfloat16* x, float alpha, unsigned int n) {
  const uint32_t i = blockIdx.x * 256u + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16_rn(__fmul_rn(alpha, __bfloat162float(x[i])));
}
