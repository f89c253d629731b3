#!/usr/bin/env bash
# Installs what the Slurm sweep test (test/slurm, `npm run test:slurm`) needs: Debian's slurm-wlm
# and munge. The test itself writes its own slurm.conf, munge key, state folders and ports, starts
# munged, slurmctld and slurmd for this one machine, and stops them afterwards. Needs root.
set -euo pipefail
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null && command -v munged >/dev/null; then
  echo "slurm-wlm and munge are installed ($(slurmctld -V))"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "scripts/slurm-setup.sh: installing slurm-wlm and munge needs root (apt-get)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
echo "installed $(slurmctld -V) and $(munged -V 2>&1 | head -1)"
