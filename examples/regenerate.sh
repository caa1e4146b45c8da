#!/usr/bin/env bash
# Regenerates the example PTX and launch specs from the CUDA sources in this folder.
# Runnable from anywhere (it works in its own directory). Needs clang-22 and python3;
# no CUDA installation: cuda_prelude.h stands in for the CUDA headers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

for kernel in vector_add saxpy; do
  clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-feature=+ptx78 -nocudainc -nocudalib -O2 -S "$kernel.cu" -o "$kernel.ptx"
done

# Launch specs (format: /work/shared/conformance/LAUNCH_SPEC.md). The input data is written out
# literally; every value is a small multiple of 0.25, so sums and products are exact in f32.
python3 - <<'PY'
import json

def buffer(type_, data=None, length=None):
    b = {"type": type_}
    if data is not None:
        b["data"] = data
    else:
        b["len"] = length
    return b

def fmt(obj, indent=0):
    # Like json.dumps(indent=2), but long number arrays wrap at 16 per line.
    pad = "  " * indent
    if isinstance(obj, dict):
        items = [f"{pad}  {json.dumps(k)}: {fmt(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and len(obj) > 16 and all(isinstance(x, (int, float)) for x in obj):
        rows = [", ".join(json.dumps(x) for x in obj[i:i + 16]) for i in range(0, len(obj), 16)]
        return "[\n" + ",\n".join(pad + "  " + r for r in rows) + "\n" + pad + "]"
    return json.dumps(obj)

def write(path, spec):
    with open(path, "w") as f:
        f.write(fmt(spec) + "\n")

# vector_add: 1000 elements on 4 blocks of 256 threads = 1024 threads, so the `i < n` guard
# matters (the last 24 threads must not write).
n = 1000
write("vector_add.launch.json", {
    "kernel": "vector_add",
    "grid": [4],
    "block": [256],
    "buffers": {
        "a": buffer("f32", [0.5 * i for i in range(n)]),
        "b": buffer("f32", [0.25 * (n - i) for i in range(n)]),
        "c": buffer("f32", length=n),
    },
    "args": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"type": "s32", "value": n}],
})

# saxpy: 5000 elements on 8 blocks of 128 threads = 1024 threads, so the grid-stride loop runs
# 4 or 5 times per thread.
n = 5000
write("saxpy.launch.json", {
    "kernel": "saxpy",
    "grid": [8],
    "block": [128],
    "buffers": {
        "x": buffer("f32", [0.5 * i for i in range(n)]),
        "y": buffer("f32", [0.25 * (i % 64) for i in range(n)]),
    },
    "args": [{"type": "s32", "value": n}, {"type": "f32", "value": 2.5}, {"buffer": "x"}, {"buffer": "y"}],
})
PY
