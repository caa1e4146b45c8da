// Sum of each block's slice of `input` (blockDim.x * ITEMS consecutive u32, wrapping): every
// thread adds ITEMS values strided by blockDim.x, then a tree over shared memory with a
// __syncthreads() between levels; thread 0 writes the block's sum to sums[blockIdx.x].
#include "../../examples/cuda_prelude.h"

#define THREADS 256
#define ITEMS 16

extern "C" __global__ void block_reduce(const unsigned *input, unsigned *sums) {
  __shared__ unsigned partial[THREADS];
  const unsigned *slice = input + (unsigned long long)blockIdx.x * THREADS * ITEMS;
  unsigned sum = 0;
  for (int item = 0; item < ITEMS; ++item)
    sum += slice[item * THREADS + threadIdx.x];
  partial[threadIdx.x] = sum;
  __nvvm_bar_sync(0);
  for (unsigned stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __nvvm_bar_sync(0);
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = partial[0];
}
