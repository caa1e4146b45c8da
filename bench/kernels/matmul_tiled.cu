// C = A * B for n x n row-major f32 matrices (n a multiple of TILE), one thread per element of
// C: each block stages TILE x TILE tiles of A and B in shared memory, with a __syncthreads()
// after loading and after using each pair of tiles. The dot product runs over k in increasing
// order, one fused multiply-add per term.
#include "../../examples/cuda_prelude.h"

#define TILE 16

extern "C" __global__ void matmul_tiled(const float *a, const float *b, float *c, int n) {
  __shared__ float tile_a[TILE][TILE];
  __shared__ float tile_b[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int column = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int base = 0; base < n; base += TILE) {
    tile_a[threadIdx.y][threadIdx.x] = a[row * n + base + threadIdx.x];
    tile_b[threadIdx.y][threadIdx.x] = b[(base + threadIdx.y) * n + column];
    __nvvm_bar_sync(0);
    for (int k = 0; k < TILE; ++k)
      sum = __builtin_fmaf(tile_a[threadIdx.y][k], tile_b[k][threadIdx.x], sum);
    __nvvm_bar_sync(0);
  }
  c[row * n + column] = sum;
}
