// Sum of each warp's 32 consecutive u32 (wrapping) with __shfl_down_sync: after five steps lane 0
// holds the warp's sum and writes it to sums[global warp index].
#include "../../examples/cuda_prelude.h"

extern "C" __global__ void warp_reduce(const unsigned *input, unsigned *sums) {
  unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned value = input[thread];
  for (int offset = 16; offset > 0; offset /= 2)
    value += __nvvm_shfl_sync_down_i32(0xffffffffu, value, offset, 0x1f);
  if ((threadIdx.x & 31) == 0)
    sums[thread / 32] = value;
}
