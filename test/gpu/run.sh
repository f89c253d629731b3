#!/usr/bin/env bash
# GPU checks of the CUDA backend, one shot, for one machine with an NVIDIA GPU (sized for an
# H200). Every step runs under its own timeout; the limits (LIMITS below) add up to 465 s, under
# 8 minutes, and the script refuses to start if they do not. Steps:
#   environment  tools, GPU, driver; whether python3 and torch are there (what is skipped without)
#   configure, build   libattnscope_cuda.so with CMake + nvcc for this GPU's architecture
#   ptxas        registers / spills per kernel instance (ptxas -v of the build)
#   sass         SASS instruction counts per kernel and main loop (cuobjdump; HMMA, local ld/st)
#   device       the library sees a CUDA device (else exit 3, after the build)
#   host_checks  the host-memory entry points the addon calls: argument checks and a valid call
#   bench        bench_cuda.py: correctness vs fp64 on odd shapes, the host entry points vs the
#                device ones, flash vs torch SDPA pinned to FLASH and to CUDNN (same timing, outputs
#                compared at every shape), paged decode vs measured copy bandwidth on shapes >= 4x L2
#   memcheck, racecheck   a few small cases under compute-sanitizer
#   node         the addon's GPU tests (test/native/cuda.test.ts), where node and the addon exist
# nvcc is looked for on PATH, then in /usr/local/cuda/bin and /usr/local/cuda-*/bin.
#
# Everything it writes goes under $OUT (default $TMPDIR/attnscope-gpu-out): run.log (all output),
# summary.txt (one line per step: ok / FAIL / skipped, with why), environment.txt, cmake.log,
# build.log, ptxas.txt, sass.txt.gz, sass_counts.{txt,json}, host_checks.log, gpu_results.json
# (bench_cuda.py), sanitize-{memcheck,racecheck}.{log,json}, node.log. Build files stay in
# native/cuda/build/run-sh.
# Usage: test/gpu/run.sh [--quick]   (--limits: print the step limits and their total, then stop;
#        ATTNSCOPE_GPU_LIMIT_SCALE=k: every limit times k, for a dry run on a slow machine)
# Exit: 0 every step ran and passed; 1 a check failed; 2 the build failed (or nvcc/cmake missing);
#       3 no CUDA device (after the build); 4 all that ran passed but a GPU step was skipped
#       (python3, torch or a CUDA tool missing: summary.txt says which).
set -u -o pipefail
cd "$(dirname "$0")/../.."
# Per-step limits in seconds, the one place they are set.
declare -A LIMITS=([environment]=25 [configure]=30 [build]=140 [ptxas]=5 [sass]=20 [device]=15 [host_checks]=10
  [bench]=135 [memcheck]=35 [racecheck]=35 [node]=15)
TOTAL=0
for s in "${!LIMITS[@]}"; do TOTAL=$((TOTAL + LIMITS[$s])); done
if [ "${1:-}" = "--limits" ]; then  # print them and stop (no GPU, nothing written)
  for s in "${!LIMITS[@]}"; do echo "$s ${LIMITS[$s]}"; done | sort
  echo "total $TOTAL"
  exit 0
fi
if [ "$TOTAL" -ge 480 ]; then echo "run.sh: the step limits add up to $TOTAL s, not under 8 minutes"; exit 2; fi
# ATTNSCOPE_GPU_LIMIT_SCALE=k multiplies every limit, for a dry run on a slow or loaded machine
# without a GPU; the 8-minute check above is on the limits as set.
SCALE="${ATTNSCOPE_GPU_LIMIT_SCALE:-1}"
for s in "${!LIMITS[@]}"; do LIMITS[$s]=$((LIMITS[$s] * SCALE)); done
QUICK=""
[ "${1:-}" = "--quick" ] && QUICK="--quick"

OUT="${OUT:-${TMPDIR:-/tmp}/attnscope-gpu-out}"
mkdir -p "$OUT"
LOG="$OUT/run.log"
SUMMARY="$OUT/summary.txt"
: >"$LOG"
: >"$SUMMARY"
exec > >(tee -a "$LOG") 2>&1
T0=$(date +%s)

STATUS=0     # 1 once a check fails
SKIPPED=0    # 1 once a GPU step is skipped
step() { echo "== [$(($(date +%s) - T0)) s] $1 (limit ${LIMITS[$1]} s)${2:+: $2}"; }
record() { echo "$1: $2" >>"$SUMMARY"; }  # step, outcome
skip() { record "$1" "skipped: $2"; echo "skipped: $2"; SKIPPED=1; }
fail() { record "$1" "FAIL: $2"; echo "run.sh: $1: $2"; STATUS=1; }
# Runs a step's command (a program or a function of this script) under its limit and records
# ok or FAIL (its exit status, or the limit it ran past). Returns the command's status.
run_limited() {
  local name="$1"; shift
  local rc=0
  if [ "$(type -t "$1")" = function ]; then
    timeout "${LIMITS[$name]}" bash -c "$(declare -f "$1"); $(printf '%q ' "$@")" || rc=$?
  else
    timeout "${LIMITS[$name]}" "$@" || rc=$?
  fi
  case "$rc" in
    0) record "$name" "ok" ;;
    124) fail "$name" "ran past its ${LIMITS[$name]} s limit" ;;
    *) fail "$name" "exit $rc" ;;
  esac
  return "$rc"
}
finish() {
  echo "== [$(($(date +%s) - T0)) s] summary (step limits add up to $TOTAL s)"
  cat "$SUMMARY"
  echo "results under $OUT; exit $1"
  exit "$1"
}

# nvcc lives under /usr/local/cuda on most GPU machines without being on PATH.
if ! command -v nvcc >/dev/null; then
  for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$dir/nvcc" ]; then PATH="$dir:$PATH"; export PATH; break; fi
  done
fi
CUDA_BIN="$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")"
# A CUDA tool: on PATH, beside nvcc, or in /usr/local/cuda*/bin (nvcc may be a wrapper elsewhere).
CUDA_DIRS="$CUDA_BIN /usr/local/cuda/bin $(echo /usr/local/cuda-*/bin)"
tool() {
  command -v "$1" 2>/dev/null && return 0
  for dir in $CUDA_DIRS; do [ -x "$dir/$1" ] && { echo "$dir/$1"; return 0; }; done
  return 0
}

step environment
PY="$(command -v python3 || true)"
probe_environment() {
  uname -m
  command -v nvcc >/dev/null && nvcc --version | tail -2
  command -v cmake >/dev/null && cmake --version | head -1
  command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  [ -n "$PY" ] && "$PY" --version
  # torch: its version, the CUDA it was built for, and whether it sees the GPU.
  [ -n "$PY" ] && "$PY" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "GPU", torch.cuda.is_available())'
  return 0
}
export PY
run_limited environment probe_environment >"$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"
TORCH=""
if [ -z "$PY" ]; then
  echo "no python3: the ptxas summary, SASS counts, host-entry checks, bench and sanitizer steps will be skipped"
elif grep -q "^torch .* GPU True" "$OUT/environment.txt"; then
  TORCH=yes
else
  echo "no torch that sees the GPU (see above): bench and sanitizer steps will be skipped"
fi

if ! command -v nvcc >/dev/null || ! command -v cmake >/dev/null; then
  record build "FAIL: nvcc and cmake are needed (nvcc looked for on PATH and in /usr/local/cuda*/bin)"
  finish 2
fi
step configure
BUILD=native/cuda/build/run-sh
ARCH="${ATTNSCOPE_CUDA_ARCHS:-90}"  # this machine's chip only; npm run build makes 80-real;90
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if ! run_limited configure cmake -S native/cuda -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
     "-DCMAKE_CUDA_ARCHITECTURES=$ARCH" "-DCMAKE_CUDA_COMPILER=$(command -v nvcc)" -DATTNSCOPE_CUDA_VERBOSE_PTXAS=ON \
     >"$OUT/cmake.log" 2>&1; then
  tail -30 "$OUT/cmake.log"; finish 2
fi
step build "architectures $ARCH"
if ! run_limited build cmake --build "$BUILD" --parallel "$(nproc)" >"$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -30; finish 2
fi
LIB="$BUILD/libattnscope_cuda.so"
export BUILD LIB OUT PYTHONUNBUFFERED=1

step ptxas "registers, spills and shared memory per kernel (ptxas -v of the build)"
if [ -n "$PY" ]; then
  run_limited ptxas "$PY" - "$OUT/build.log" >"$OUT/ptxas.txt" <<'PY'
import re, sys
name, spills, bad = None, "", 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Compiling entry function '(\w+)' for '(sm_\w+)'", line)
    if m:
        name = re.sub(r"^_ZN9attnscope4cuda(48_GLOBAL__N__\w+?_)?\d+", "", m.group(1))[:90] + " " + m.group(2)
    elif name and "spill" in line:
        spills = line.strip()
        bad += not re.search(r"\b0 bytes spill stores, 0 bytes spill loads", spills)
    elif name and "Used" in line and "registers" in line:
        print(f"  {name}: {line.split(':', 1)[1].strip()}; {spills}")
        name = None
print(f"{bad} kernel instance(s) with spills")
sys.exit(1 if bad else 0)
PY
  cat "$OUT/ptxas.txt"
else
  skip ptxas "no python3"
fi

step sass "instruction counts per kernel and main loop: HMMA, local loads/stores"
CUOBJDUMP="$(tool cuobjdump)"
if [ -z "$CUOBJDUMP" ]; then
  skip sass "no cuobjdump on PATH or in $CUDA_DIRS"
elif [ -z "$PY" ]; then
  skip sass "no python3"
else
  export CUOBJDUMP
  sass_counts() {
    "$CUOBJDUMP" -sass "$LIB" >"$BUILD/sass.txt" &&
      "$PY" test/gpu/sass_counts.py "$BUILD/sass.txt" --json "$OUT/sass_counts.json" >"$OUT/sass_counts.txt" &&
      gzip -c "$BUILD/sass.txt" >"$OUT/sass.txt.gz"
  }
  run_limited sass sass_counts && grep -E "flash_fwd|paged_decode" "$OUT/sass_counts.txt" | cut -c1-220
fi

step device
DEVICE=0
if [ -n "$PY" ]; then
  timeout "${LIMITS[device]}" "$PY" - "$LIB" <<'PY' || DEVICE=$?
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
else
  timeout "${LIMITS[device]}" nvidia-smi -L || DEVICE=3
fi
if [ "$DEVICE" != 0 ]; then
  record device "no CUDA device (exit $DEVICE): built, then stopped before the GPU steps"
  finish 3
fi
record device ok

step host_checks "the addon's host-memory entry points: argument checks, then a valid call"
if [ -n "$PY" ]; then
  run_limited host_checks "$PY" -B test/gpu/test_host_checks.py "$LIB" >"$OUT/host_checks.log" 2>&1
  tail -3 "$OUT/host_checks.log"
else
  skip host_checks "no python3"
fi

step bench "bench_cuda.py $QUICK"
if [ -z "$TORCH" ]; then
  skip bench "no python3 with a torch that sees the GPU (correctness, flash vs SDPA, decode bandwidth)"
else
  run_limited bench "$PY" test/gpu/bench_cuda.py --lib "$LIB" --json "$OUT/gpu_results.json" $QUICK
  [ -f "$OUT/gpu_results.json" ] || echo "run.sh: bench_cuda.py wrote no results"
fi

SANITIZER="$(tool compute-sanitizer)"
for check in memcheck racecheck; do
  step "$check" "compute-sanitizer on bench_cuda.py --sanitize (a few small cases)"
  if [ -z "$SANITIZER" ]; then skip "$check" "no compute-sanitizer on PATH or in $CUDA_DIRS"; continue; fi
  if [ -z "$TORCH" ]; then skip "$check" "no python3 with a torch that sees the GPU"; continue; fi
  run_limited "$check" "$SANITIZER" --tool "$check" --error-exitcode 9 "$PY" test/gpu/bench_cuda.py \
    --lib "$LIB" --json "$OUT/sanitize-$check.json" --sanitize >"$OUT/sanitize-$check.log" 2>&1
  tail -4 "$OUT/sanitize-$check.log"
done

step node "the addon's GPU tests"
if command -v node >/dev/null && [ -d node_modules ] && [ -f native/build/Release/attnscope_native.node ]; then
  export ATTNSCOPE_CUDA_LIB="$PWD/$LIB"
  run_limited node node --import tsx --test test/native/cuda.test.ts >"$OUT/node.log" 2>&1
  grep -E "^# (tests|pass|fail|skipped)" "$OUT/node.log"
else
  skip node "node, node_modules or the built addon is missing on this machine"
fi

if [ "$STATUS" != 0 ]; then finish 1; fi
if [ "$SKIPPED" != 0 ]; then finish 4; fi
finish 0
