// Minimal stand-in for the CUDA headers, so that clang can compile the example kernels
// without a CUDA installation (-nocudainc -nocudalib). Only what the examples use.
#ifndef PTXR_CUDA_PRELUDE_H
#define PTXR_CUDA_PRELUDE_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))

// threadIdx, blockIdx, blockDim, gridDim, warpSize (ships with clang).
#include "__clang_cuda_builtin_vars.h"

#endif
