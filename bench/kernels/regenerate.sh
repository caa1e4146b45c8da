#!/usr/bin/env bash
# Rebuilds the benchmark kernels' PTX from their CUDA sources with clang 22.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for kernel in block_reduce matmul_tiled warp_reduce histogram; do
  clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-feature=+ptx78 -nocudainc -nocudalib -O2 \
    -S "$kernel.cu" -o "$kernel.ptx"
done
