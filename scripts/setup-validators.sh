#!/usr/bin/env bash
# Idempotent: installs NVIDIA's ptxas 12.9 (from the PyPI wheel nvidia-cuda-nvcc-cu12) for checking
# the NVPTX output, into "$PTXR_CACHE/ptxas-cu12" (PTXR_CACHE defaults to <repo>/.cache, which
# git ignores). Needs python3 with pip; no CUDA installation and no GPU. Skips the download when a
# working ptxas is already there. Prints the ptxas path as the only line on stdout; progress and
# errors go to stderr:
#
#   ptxas=$(scripts/setup-validators.sh) && "$ptxas" -arch=sm_80 examples/vector_add.ptx -o /tmp/x.cubin
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${PTXR_CACHE:-$repo_root/.cache}
target="$cache/ptxas-cu12"
python=${PYTHON:-python3}
# Pinned so that every machine checks against the same ptxas (PTX ISA up to 8.8, up to sm_121).
wheel=${PTXR_PTXAS_WHEEL:-nvidia-cuda-nvcc-cu12==12.9.86}

log() { echo "setup-validators: $*" >&2; }

# The cu12 wheel holds only nvidia/cuda_nvcc/bin/ptxas, nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so and
# nvidia/cuda_nvcc/nvvm/libdevice (no nvcc); the CUDA 13 wheels use nvidia/cu13/bin instead.
find_ptxas() {
  local candidate
  for candidate in "$target/nvidia/cuda_nvcc/bin/ptxas" "$target"/nvidia/*/bin/ptxas; do
    if [ -f "$candidate" ]; then
      printf '%s\n' "$candidate"
      return 0
    fi
  done
  return 1
}

# Makes $1 executable (wheels do not always keep the bit) and checks that it runs.
ptxas_works() {
  [ -x "$1" ] || chmod +x "$1"
  # Captured first: with pipefail, `ptxas --version | grep -q` fails whenever grep exits before
  # ptxas has written everything (SIGPIPE), which made a working ptxas look broken.
  local version
  version=$("$1" --version 2>/dev/null) || return 1
  grep -q 'Cuda compilation tools' <<<"$version"
}

install_wheel() {
  if ! "$python" -m pip --version >/dev/null 2>&1; then
    log "'$python -m pip' is not available (on Debian: apt-get install python3-pip)"
    exit 1
  fi
  log "installing $wheel into $target"
  mkdir -p "$cache"
  local pip_args=(install --quiet --disable-pip-version-check --no-deps --no-compile --upgrade
    --target "$target" "$wheel")
  local output
  if ! output=$("$python" -m pip "${pip_args[@]}" 2>&1); then
    if grep -q externally-managed-environment <<<"$output"; then
      # PEP 668 (Debian 12's system python). pip 23 does not apply it to --target installs,
      # but other versions or distributions might; --target touches nothing of the system's,
      # so overriding it is safe here.
      log "pip refused (externally managed environment); retrying with --break-system-packages"
      "$python" -m pip "${pip_args[@]}" --break-system-packages >&2
    else
      printf '%s\n' "$output" >&2
      log "pip install $wheel failed"
      exit 1
    fi
  elif [ -n "$output" ]; then
    printf '%s\n' "$output" >&2
  fi
}

if ptxas=$(find_ptxas) && ptxas_works "$ptxas"; then
  log "ptxas already installed"
else
  if [ -e "$target" ]; then
    log "removing the incomplete install in $target"
    rm -rf "$target"
  fi
  install_wheel
  if ! ptxas=$(find_ptxas); then
    log "no bin/ptxas found under $target after installing $wheel"
    exit 1
  fi
  if ! ptxas_works "$ptxas"; then
    "$ptxas" --version >&2 || true
    log "$ptxas does not run"
    exit 1
  fi
fi

log "$("$ptxas" --version | grep -m1 'release')"
printf '%s\n' "$ptxas"
