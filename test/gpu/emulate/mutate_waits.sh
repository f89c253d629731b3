#!/usr/bin/env bash
# Proves that the CPU emulation can fail: for every cp_async_wait<N> in the kernels' source, a
# scratch copy of native/cuda/src with that one wait raised to N + 1 (so a tile is read before
# its copy is guaranteed to land) must make the emulation of one case of that kernel FAIL.
# No GPU needed; about 1.5 min per wait on 2 cores. Exit 0 when every mutant fails the emulation.
set -eu -o pipefail
cd "$(dirname "$0")/../../.."
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/attnscope-mutate.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
mutants=0
survivors=0
for file in native/cuda/src/*.cuh; do
  case "$(basename "$file")" in
    flash_fwd.cuh) cases="Nk257" ;;          # 2 query tiles x 9 key tiles
    paged_decode.cuh) cases="partitions of 64" ;;  # several steps, several partitions (CUDA cores)
    paged_decode_mma.cuh) cases="H16/1" ;;         # tensor cores: several steps, several partitions
    *) cases="" ;;
  esac
  count=$( (grep -o 'cp_async_wait<[0-9]*>' "$file" || true) | wc -l)
  [ "$count" -gt 0 ] || continue
  if [ -z "$cases" ]; then echo "mutate_waits.sh: $file waits on cp.async but has no emulated cases"; exit 1; fi
  for i in $(seq 1 "$count"); do
    rm -rf "$SCRATCH/src" && cp -r native/cuda/src "$SCRATCH/src"
    I="$i" perl -pe 's/cp_async_wait<(\d+)>/++$n == $ENV{I} ? "cp_async_wait<" . ($1 + 1) . ">" : $&/ge' \
      "$file" >"$SCRATCH/src/$(basename "$file")"
    what="$(basename "$file"): wait #$i $(grep -o 'cp_async_wait<[0-9]*>' "$file" | sed -n "${i}p") -> +1"
    mutants=$((mutants + 1))
    status=0
    ATTNSCOPE_CUDA_SRC="$SCRATCH/src" bash test/gpu/emulate/run.sh "$cases" >"$SCRATCH/log" 2>&1 || status=$?
    if [ "$status" = 1 ]; then
      echo "ok: $what fails the emulation ($(grep -c FAIL "$SCRATCH/log") FAIL lines)"
    else
      echo "SURVIVED: $what (emulation exit $status)"; tail -5 "$SCRATCH/log"
      survivors=$((survivors + 1))
    fi
  done
done
[ "$mutants" -gt 0 ] || { echo "mutate_waits.sh: no cp_async_wait found"; exit 1; }
echo "$((mutants - survivors)) of $mutants mutated waits fail the emulation"
[ "$survivors" = 0 ]
