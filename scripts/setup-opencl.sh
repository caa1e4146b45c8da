#!/usr/bin/env bash
# Idempotent: installs Intel's OpenCL CPU runtime (it accepts SPIR-V, which Debian's PoCL 3.1 does
# not) from PyPI's wheels into "$PTXR_CACHE/intel-ocl" (PTXR_CACHE defaults to <repo>/.cache), for
# `ptxr run --target spirv` and its tests. The wheels are unpacked rather than pip-installed
# because their libraries are data files that `pip install --target` drops. Prints the ICD
# folder as the only line on stdout; export it as OCL_ICD_VENDORS:
#
#   export OCL_ICD_VENDORS=$(bash scripts/setup-opencl.sh)
#   ptxr run examples/vector_add.ptx --launch examples/vector_add.launch.json --target spirv
#
# The ICD loader itself (libOpenCL.so.1) comes from Debian's ocl-icd-libopencl1 (scripts/setup.sh).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${PTXR_CACHE:-$repo_root/.cache}
target="$cache/intel-ocl"
python=${PYTHON:-python3}
# Pinned so that every machine runs the same runtime; intel-opencl-rt needs tbb 2023 (which needs
# tcmlib) and the compiler runtime libraries.
wheels=(intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 intel-cmplr-lic-rt==2026.2.0 tbb==2023.2.0 tcmlib==1.6.0)

log() { echo "setup-opencl: $*" >&2; }

if [ ! -f "$target/lib/libintelocl.so" ] || [ ! -f "$target/vendors/intel-cpu.icd" ]; then
  if ! "$python" -m pip --version >/dev/null 2>&1; then
    log "'$python -m pip' is not available (on Debian: apt-get install python3-pip)"
    exit 1
  fi
  if ! command -v unzip >/dev/null 2>&1; then
    log "unzip is missing (on Debian: apt-get install unzip)"
    exit 1
  fi
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  log "downloading ${wheels[*]}"
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$download" "${wheels[@]}" >&2
  rm -rf "$target"
  mkdir -p "$target/lib" "$target/vendors"
  for wheel in "$download"/*.whl; do
    unzip -q -o "$wheel" '*.data/data/lib/*' -d "$download/unpacked" 2>/dev/null || true
  done
  for lib in "$download"/unpacked/*.data/data/lib; do
    cp -a "$lib/." "$target/lib/"
  done
  if [ ! -f "$target/lib/libintelocl.so" ]; then
    log "no libintelocl.so in the downloaded wheels"
    exit 1
  fi
  # The library's RUNPATH is $ORIGIN, so its dependencies are found beside it.
  printf '%s\n' "$target/lib/libintelocl.so" > "$target/vendors/intel-cpu.icd"
  log "installed Intel's OpenCL CPU runtime into $target"
else
  log "Intel's OpenCL CPU runtime is already installed"
fi
printf '%s\n' "$target/vendors"
