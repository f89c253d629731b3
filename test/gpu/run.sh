#!/usr/bin/env bash
# GPU checks of the CUDA backend, for one machine with an NVIDIA GPU (sized for an H200 and
# under 8 minutes): build libattnscope_cuda.so (CMake + nvcc), then test/gpu/bench_cuda.py:
# correctness against an fp64 reference on odd shapes, flash forward against torch SDPA at
# N in {1k, 4k, 16k} (D 128, causal and not), paged decode bandwidth against the measured
# device copy bandwidth (batch 1..256, context 1k..32k); then, when node and node_modules are
# present, the addon's own GPU tests (test/native/cuda.test.ts).
#
# Output under $OUT (default $TMPDIR/attnscope-gpu-out): run.log, gpu_results.json (see bench_cuda.py).
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

step "environment"
uname -m
command -v nvcc >/dev/null && nvcc --version | tail -2
command -v cmake >/dev/null && cmake --version | head -1
command -v nvidia-smi >/dev/null && timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
python3 --version

step "build libattnscope_cuda.so"
if ! command -v nvcc >/dev/null || ! command -v cmake >/dev/null; then
  echo "run.sh: nvcc and cmake are needed to build the CUDA library"
  exit 2
fi
BUILD=native/cuda/build/run-sh
ARCH="${ATTNSCOPE_CUDA_ARCHS:-90}"  # this machine's chip only; npm run build makes 80-real;90
GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
# shellcheck disable=SC2086
if ! timeout 300 cmake -S native/cuda -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$ARCH" \
     -DATTNSCOPE_CUDA_VERBOSE_PTXAS=ON >"$OUT/cmake.log" 2>&1; then
  tail -30 "$OUT/cmake.log"; echo "run.sh: cmake configure failed"; exit 2
fi
B0=$(date +%s)
if ! timeout 300 cmake --build "$BUILD" --parallel "$(nproc)" >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30; echo "run.sh: CUDA build failed"; exit 2
fi
echo "built $BUILD/libattnscope_cuda.so in $(($(date +%s) - B0)) s (architectures $ARCH)"
# Registers, spills and shared memory per kernel (ptxas -v), the first thing to read when slow.
python3 - "$OUT/build.log" <<'EOF'
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
EOF

step "device"
if ! timeout 60 python3 - "$BUILD/libattnscope_cuda.so" <<'EOF'
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
      f"{info['multiprocessor_count']} SMs, {info['total_memory_bytes'] / 2**30:.0f} GiB, driver {info['driver_version']}, "
      f"runtime {info['runtime_version']}")
EOF
then
  echo "run.sh: no CUDA device here: built and stopped before the GPU checks (exit 3)"
  exit 3
fi

step "kernels on the GPU (bench_cuda.py $QUICK)"
STATUS=0
PYTHONUNBUFFERED=1 timeout 420 python3 test/gpu/bench_cuda.py --lib "$BUILD/libattnscope_cuda.so" \
  --json "$OUT/gpu_results.json" $QUICK || STATUS=$?
[ "$STATUS" = 124 ] && echo "run.sh: bench_cuda.py ran past its 420 s limit; partial results kept"

step "addon GPU tests (node)"
if command -v node >/dev/null && [ -d node_modules ] && [ -f native/build/Release/attnscope_native.node ]; then
  ATTNSCOPE_CUDA_LIB="$PWD/$BUILD/libattnscope_cuda.so" timeout 120 node --import tsx --test test/native/cuda.test.ts \
    || { echo "run.sh: addon GPU tests failed"; [ "$STATUS" = 0 ] && STATUS=1; }
else
  echo "skipped: node, node_modules or the built addon is missing on this machine"
fi

step "done (exit $STATUS); results in $OUT/gpu_results.json, log in $LOG"
exit "$STATUS"
