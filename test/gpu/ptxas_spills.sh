#!/usr/bin/env bash
# Compiles the CUDA kernels' source with `ptxas -v` for the shipped architectures (sm_80,
# sm_90) and fails when any kernel instance spills registers to local memory (spill stores or
# loads > 0 bytes): the flash forward kernels at head_dim 64 and 128 and the decode kernels.
# Prints registers, spills and stack per instance. Needs nvcc ($CUDACXX, PATH, or
# /usr/local/cuda/bin), no GPU; about 2 min on 2 cores. Usage: test/gpu/ptxas_spills.sh [out.txt]
# Exit: 0 no spill; 1 a spill; 2 nvcc missing or the compile failed.
set -eu -o pipefail
cd "$(dirname "$0")/../.."
NVCC="${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
[ -x "$NVCC" ] || { echo "ptxas_spills.sh: nvcc not found (\$CUDACXX, PATH, /usr/local/cuda/bin)"; exit 2; }
OUT="${1:-}"
LOG="$(mktemp "${TMPDIR:-/tmp}/attnscope-ptxas.XXXXXX")"
trap 'rm -f "$LOG" "$LOG.o"' EXIT
for src in flash_fwd_hdim64.cu flash_fwd_hdim128.cu paged_decode.cu; do
  # The flags of CMakeLists.txt's CUDA target (Release), for both shipped architectures.
  if ! "$NVCC" -std=c++17 -O3 --expt-relaxed-constexpr -Inative/cuda/include -Inative/cuda/src \
      -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -Xptxas -v \
      -c "native/cuda/src/$src" -o "$LOG.o" >>"$LOG" 2>&1; then
    cat "$LOG"; echo "ptxas_spills.sh: $src failed to compile"; exit 2
  fi
done
# ptxas -v prints, per entry function: "Compiling entry function '<mangled>' for 'sm_XX'", then
# "N bytes stack frame, N bytes spill stores, N bytes spill loads", then "Used N registers".
awk '
  /Compiling entry function/ {
    match($0, /function \x27[^\x27]+\x27/); name = substr($0, RSTART + 10, RLENGTH - 11)
    match($0, /for \x27sm_[0-9]+\x27/); arch = substr($0, RSTART + 5, RLENGTH - 6)
    gsub(/^_ZN9attnscope4cuda[0-9]+/, "", name)
  }
  /bytes stack frame/ { stack = $1; stores = $5; loads = $9 }
  /Used [0-9]+ registers/ && name != "" {
    match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15)
    printf "%-6s %3d regs  %4d B spill stores  %4d B spill loads  %4d B stack  %s\n", arch, regs, stores, loads, stack, name
    if (stores + loads > 0) bad++
    n++; name = ""
  }
  END {
    if (n == 0) { print "ptxas_spills.sh: no kernel found in the ptxas output"; exit 2 }
    printf "%d kernel instances, %d with spills\n", n, bad
    exit bad > 0 ? 1 : 0
  }' "$LOG" | tee ${OUT:+"$OUT"}
