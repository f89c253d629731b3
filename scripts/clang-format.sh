#!/usr/bin/env bash
# The C++ / CUDA formatter (.clang-format at the repository root; Debian's clang-format 14+:
# `apt-get install clang-format`).
#   bash scripts/clang-format.sh FILE...   format these files in place
#   bash scripts/clang-format.sh --check   check that the files below are still in the format
# The tree is not reformatted in one sweep (several people edit native/ at once): format a file
# when you next change it, then add it to FORMATTED. Exit 1 when a checked file is not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."

# Files in the .clang-format format; the check holds them there.
FORMATTED=(
  native/cuda/src/flash_fwd_hdim128.cu
  native/cuda/src/flash_fwd_hdim64.cu
  native/src/kernels/simd/ops_avx512.cc
  native/src/kernels/status.cc
  native/src/kernels/threads.h
  native/src/kernels/timing.cc
  native/src/peaks/loops.h
  native/src/peaks/portable.cc
  test/gpu/emulate/cuda_bf16.h
)

command -v clang-format >/dev/null || { echo "clang-format: not installed (apt-get install clang-format)" >&2; exit 1; }
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${FORMATTED[@]}"
  echo "clang-format: ${#FORMATTED[@]} files in the format"
elif [ $# -gt 0 ]; then
  clang-format -i "$@"
else
  echo "usage: bash scripts/clang-format.sh FILE... | --check" >&2
  exit 2
fi
