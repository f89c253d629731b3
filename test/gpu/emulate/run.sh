#!/usr/bin/env bash
# Builds and runs the CPU emulation of the CUDA kernels (emulate.cc): the kernels' real source
# on g++, one thread per CUDA thread, against an fp64 reference. No GPU, no nvcc needed; about
# a minute on 2 cores. Usage: test/gpu/emulate/run.sh   Exit 0 when every case matches.
set -eu -o pipefail
cd "$(dirname "$0")/../../.."
BIN="${TMPDIR:-/tmp}/attnscope-cuda-emulate"
g++ -std=c++17 -O2 -pthread -Wall -Wno-unknown-pragmas -Itest/gpu/emulate -Inative/cuda/include -Inative/cuda/src \
  test/gpu/emulate/emulate.cc -o "$BIN"
exec "$BIN"
