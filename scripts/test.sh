#!/usr/bin/env bash
# Runs ptxr's whole test suite with every external validator required: spirv-val and
# llvm-readelf-22 (from scripts/setup.sh) and NVIDIA's ptxas (from scripts/setup-validators.sh).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
bash scripts/setup.sh
bash scripts/setup-validators.sh >/dev/null
# An OpenCL platform that accepts SPIR-V, for the tests of `ptxr run --target spirv`.
OCL_ICD_VENDORS=$(bash scripts/setup-opencl.sh)
export OCL_ICD_VENDORS
export PTXR_REQUIRE_VALIDATORS=1
cargo test --workspace --locked
