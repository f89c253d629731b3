#!/usr/bin/env bash
# Builds and runs the CPU emulation of the CUDA kernels (emulate.cc): the kernels' real source
# on g++, one thread per CUDA thread, against an fp64 reference. No GPU, no nvcc needed; about
# 2 minutes on 2 busy cores. Usage: test/gpu/emulate/run.sh [case-name substring]
# $ATTNSCOPE_CUDA_SRC replaces native/cuda/src (mutate_waits.sh points it at a mutated copy).
# Exit 0 when every case run matches; 1 when one does not; 2 when no case matches.
set -eu -o pipefail
cd "$(dirname "$0")/../../.."
SRC="${ATTNSCOPE_CUDA_SRC:-native/cuda/src}"
BIN="$(mktemp "${TMPDIR:-/tmp}/attnscope-cuda-emulate.XXXXXX")"
trap 'rm -f "$BIN"' EXIT
g++ -std=c++17 -O2 -pthread -Wall -Wno-unknown-pragmas -Itest/gpu/emulate -Inative/cuda/include -I"$SRC" \
  test/gpu/emulate/emulate.cc -o "$BIN"
"$BIN" "$@"
