// The dense family's kernels, compiled as one translation unit into dense.fatbin.
// C[M,N] = A[M,K] · B[N,K]ᵀ in BF16 with FP32 accumulation; tile geometry in dense_tiles.h.
#include "gemv.cuh"
#include "hopper.cuh"
#include "pack.cuh"
#include "pipelined.cuh"
#include "scalar.cuh"
#include "splitk.cuh"
#include "tensor_core.cuh"
