#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine with Rust: installs only what is missing.
# LLVM's major version comes from llvm-version.txt so that every path agrees with it.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
llvm_major=$(tr -d '[:space:]' < "$repo_root/llvm-version.txt")

packages=(
  "llvm-${llvm_major}-dev"
  # llc: SPIR-V code generation for the second and later modules of a process
  # (lowering/src/spirv_emission.rs).
  "llvm-${llvm_major}"
  "libpolly-${llvm_major}-dev"
  "clang-${llvm_major}"
  "lld-${llvm_major}"
  libzstd-dev
  spirv-tools
  # The OpenCL ICD loader for `ptxr run --target spirv` (scripts/setup-opencl.sh adds a platform).
  ocl-icd-libopencl1
  unzip
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  if [ "$status" != "install ok installed" ]; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
  fi
  echo "setup: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

llvm_prefix="/usr/lib/llvm-${llvm_major}"
if [ ! -x "$llvm_prefix/bin/llvm-config" ]; then
  echo "setup: $llvm_prefix/bin/llvm-config is missing after installing llvm-${llvm_major}-dev" >&2
  exit 1
fi
