// 256-bin histogram of the bytes of `input` (n bytes): a grid-stride loop in which every byte is
// one atomicAdd on its global bin.
#include "../../examples/cuda_prelude.h"

extern "C" __global__ void histogram(const unsigned char *input, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    __nvvm_atom_add_gen_i((int *)&bins[input[i]], 1);
}
