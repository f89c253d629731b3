#!/usr/bin/env bash
# GPU checks of the CUDA backend, for one machine with an NVIDIA GPU (sized for an H200; every
# step has a timeout and they add up to 475 s, under 8 minutes): build libattnscope_cuda.so
# (CMake + nvcc, this GPU's architecture), registers/spills per kernel (ptxas -v) and SASS
# instruction counts (cuobjdump), then test/gpu/bench_cuda.py: correctness against fp64 on odd
# shapes and the host-memory entry points, flash forward vs torch SDPA pinned to FLASH and to
# CUDNN (one timing method for all, outputs compared at every shape), paged decode vs the
# measured copy bandwidth on shapes >= 4x L2; a small subset under compute-sanitizer memcheck
# and racecheck; then, when node and node_modules are present, the addon's GPU tests.
#
# Output under $OUT (default $TMPDIR/attnscope-gpu-out): run.log, gpu_results.json (bench_cuda.py),
# ptxas.txt, sass.txt + sass_counts.{json,txt}, sanitize-{memcheck,racecheck}.{log,json}.
# Usage: test/gpu/run.sh [--quick]      Exit: 0 all correct; 1 a check failed; 2 build failed;
#                                       3 no CUDA device (said on the last line).
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-${TMPDIR:-/tmp}/attnscope-gpu-out}"
mkdir -p "$OUT"
LOG="$OUT/run.log"
: >"$LOG"
exec > >(tee -a "$LOG") 2>&1
QUICK=""
[ "${1:-}" = "--quick" ] && QUICK="--quick"
T0=$(date +%s)
step() { echo "== [$(($(date +%s) - T0)) s] $*"; }
# Per-step limits in seconds (sum 475): environment 20, configure 40, build 150, SASS 20,
# device 20, bench 140, memcheck 35, racecheck 35, node 15.

# nvcc lives under /usr/local/cuda on most GPU machines without being on PATH.
if ! command -v nvcc >/dev/null; then
  for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$dir/nvcc" ]; then PATH="$dir:$PATH"; export PATH; break; fi
  done
fi
CUDA_BIN="$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")"
tool() { command -v "$1" 2>/dev/null || { [ -x "$CUDA_BIN/$1" ] && echo "$CUDA_BIN/$1"; }; }

step "environment"
uname -m
command -v nvcc >/dev/null && nvcc --version | tail -2
command -v cmake >/dev/null && cmake --version | head -1
command -v nvidia-smi >/dev/null && timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
python3 --version

step "build libattnscope_cuda.so"
if ! command -v nvcc >/dev/null || ! command -v cmake >/dev/null; then
  echo "run.sh: nvcc and cmake are needed to build the CUDA library (nvcc looked for on PATH and in /usr/local/cuda*/bin)"
  exit 2
fi
BUILD=native/cuda/build/run-sh
ARCH="${ATTNSCOPE_CUDA_ARCHS:-90}"  # this machine's chip only; npm run build makes 80-real;90
GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
# shellcheck disable=SC2086
if ! timeout 40 cmake -S native/cuda -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$ARCH" \
     "-DCMAKE_CUDA_COMPILER=$(command -v nvcc)" -DATTNSCOPE_CUDA_VERBOSE_PTXAS=ON >"$OUT/cmake.log" 2>&1; then
  tail -30 "$OUT/cmake.log"; echo "run.sh: cmake configure failed"; exit 2
fi
B0=$(date +%s)
if ! timeout 150 cmake --build "$BUILD" --parallel "$(nproc)" >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30; echo "run.sh: CUDA build failed"; exit 2
fi
echo "built $BUILD/libattnscope_cuda.so in $(($(date +%s) - B0)) s (architectures $ARCH)"
# Registers, spills and shared memory per kernel (ptxas -v), the first thing to read when slow.
python3 - "$OUT/build.log" <<'PY' | tee "$OUT/ptxas.txt"
import re, sys
name = None
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Compiling entry function '(\w+)' for '(sm_\w+)'", line)
    if m:
        name = re.sub(r"^_ZN9attnscope4cuda(48_GLOBAL__N__\w+?_)?\d+", "", m.group(1))[:90] + " " + m.group(2)
    elif name and "spill" in line:
        spill = line.strip()
    elif name and "Used" in line and "registers" in line:
        print(f"  {name}: {line.split(':', 1)[1].strip()}; {spill}")
        name = None
PY

step "SASS instruction counts (cuobjdump -sass; HMMA, local loads/stores, in each kernel and its main loop)"
CUOBJDUMP="$(tool cuobjdump)"
if [ -n "$CUOBJDUMP" ]; then
  if timeout 20 "$CUOBJDUMP" -sass "$BUILD/libattnscope_cuda.so" >"$OUT/sass.txt" 2>&1; then
    python3 test/gpu/sass_counts.py "$OUT/sass.txt" --json "$OUT/sass_counts.json" >"$OUT/sass_counts.txt"
    grep -E "flash_fwd|paged_decode" "$OUT/sass_counts.txt" | cut -c1-220
  else
    echo "run.sh: cuobjdump failed (see $OUT/sass.txt)"
  fi
else
  echo "skipped: no cuobjdump on PATH or in $CUDA_BIN"
fi

step "device"
if ! timeout 20 python3 - "$BUILD/libattnscope_cuda.so" <<'PY'
import sys
sys.path.insert(0, "test/gpu")
from attnscope_cuda import CudaError, Library
try:
    lib = Library(sys.argv[1])
    n = lib.device_count()
except (OSError, CudaError) as e:
    print(f"no CUDA device: {e}")
    sys.exit(3)
if n == 0:
    print("no CUDA device: the driver reports 0 GPUs")
    sys.exit(3)
info = lib.device_info(0)
print(f"{n} device(s); 0: {info['name']}, sm_{info['compute_capability_major']}{info['compute_capability_minor']}, "
      f"{info['multiprocessor_count']} SMs, {info['total_memory_bytes'] / 2**30:.0f} GiB, L2 {info['l2_cache_bytes'] >> 20} MiB, "
      f"driver {info['driver_version']}, runtime {info['runtime_version']}")
PY
then
  echo "run.sh: no CUDA device here: built and stopped before the GPU checks (exit 3)"
  exit 3
fi

step "kernels on the GPU (bench_cuda.py $QUICK)"
STATUS=0
PYTHONUNBUFFERED=1 timeout 140 python3 test/gpu/bench_cuda.py --lib "$BUILD/libattnscope_cuda.so" \
  --json "$OUT/gpu_results.json" $QUICK || STATUS=$?
[ "$STATUS" = 124 ] && echo "run.sh: bench_cuda.py ran past its 140 s limit; partial results kept"

SANITIZER="$(tool compute-sanitizer)"
for check in memcheck racecheck; do
  step "compute-sanitizer --tool $check (bench_cuda.py --sanitize: a few small cases)"
  if [ -z "$SANITIZER" ]; then echo "skipped: no compute-sanitizer on PATH or in $CUDA_BIN"; continue; fi
  S=0
  PYTHONUNBUFFERED=1 timeout 35 "$SANITIZER" --tool "$check" --error-exitcode 9 python3 test/gpu/bench_cuda.py \
    --lib "$BUILD/libattnscope_cuda.so" --json "$OUT/sanitize-$check.json" --sanitize \
    >"$OUT/sanitize-$check.log" 2>&1 || S=$?
  tail -4 "$OUT/sanitize-$check.log"
  case "$S" in
    0) echo "$check: no errors" ;;
    124) echo "$check: ran past its 35 s limit (unfinished, not counted as a failure)" ;;
    *) echo "run.sh: $check exit $S (see $OUT/sanitize-$check.log)"; [ "$STATUS" = 0 ] && STATUS=1 ;;
  esac
done

step "addon GPU tests (node)"
if command -v node >/dev/null && [ -d node_modules ] && [ -f native/build/Release/attnscope_native.node ]; then
  ATTNSCOPE_CUDA_LIB="$PWD/$BUILD/libattnscope_cuda.so" timeout 15 node --import tsx --test test/native/cuda.test.ts \
    || { echo "run.sh: addon GPU tests failed"; [ "$STATUS" = 0 ] && STATUS=1; }
else
  echo "skipped: node, node_modules or the built addon is missing on this machine"
fi

step "done (exit $STATUS); results in $OUT/gpu_results.json, log in $LOG"
exit "$STATUS"
