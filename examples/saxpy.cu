// y[i] = a * x[i] + y[i] with a grid-stride loop, so any grid covers any n.
#include "cuda_prelude.h"

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
