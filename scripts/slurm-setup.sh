#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for `attnscope submit --slurm` and the sweep's
# scheduler test (test/slurm, `npm run test:slurm`, which starts and stops it through this script).
#
#   bash scripts/slurm-setup.sh               install Debian's slurm-wlm and munge (apt-get)
#   bash scripts/slurm-setup.sh --start [DIR]  install them if needed, then start munged, slurmctld
#                                              and slurmd for this machine with their own munge key
#                                              and socket, slurm.conf, state, spool, logs and free
#                                              ports, all in DIR (default /tmp/attnscope-slurm; it
#                                              must be absent or empty), and wait until the node is
#                                              idle; prints the SLURM_CONF to export
#   bash scripts/slurm-setup.sh --stop [DIR]   stop exactly the daemons --start started there (by the
#                                              pids they wrote) and remove DIR
#
# It touches nothing of the machine's own Slurm or munge (/etc/slurm, /etc/munge). Needs root:
# apt-get, and slurmd runs jobs as their user. Details: /work/shared/notes/slurm-single-node.md.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
mode=install
case "${1:-}" in
  --start) mode=start ;;
  --stop) mode=stop ;;
  '') ;;
  *) echo "usage: bash scripts/slurm-setup.sh [--start [DIR] | --stop [DIR]]" >&2; exit 2 ;;
esac
dir="${2:-/tmp/attnscope-slurm}"
# The ClusterName marks a folder this script made: --stop removes no other.
cluster_name=attnscopetest

install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null && command -v munged >/dev/null && command -v mungekey >/dev/null; then
    echo "slurm-wlm and munge are installed ($(slurmctld -V))"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "scripts/slurm-setup.sh: installing slurm-wlm and munge needs root (apt-get)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
  echo "installed $(slurmctld -V) and $(munged -V 2>&1 | head -1)"
}

# Kills the daemons whose pid files are in $dir, waits up to 15 s for them to exit (then SIGKILL).
stop_daemons() {
  local pids=() f pid
  for f in "$dir/munge-run/munged.pid" "$dir/slurmctld.pid" "$dir/slurmd.pid"; do
    [ -f "$f" ] || continue
    pid=$(tr -dc 0-9 <"$f")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && pids+=("$pid")
  done
  [ "${#pids[@]}" -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 150); do
    local left=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left=1; done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

# The last lines of a daemon's log, for a failure message.
tail_log() { if [ -f "$1" ]; then echo "$1:"; tail -n 8 "$1"; else echo "(no $1)"; fi; }

fail() {
  echo "scripts/slurm-setup.sh --start: $1" >&2
  tail_log "$dir/log/slurmctld.log" >&2
  tail_log "$dir/log/slurmd.log" >&2
  stop_daemons
  rm -rf "$dir"
  exit 1
}

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }

start() {
  install >/dev/null
  if [ "$(id -u)" != 0 ]; then
    echo "scripts/slurm-setup.sh --start: slurmd must run as root (it starts jobs as their user): run this as root" >&2
    exit 1
  fi
  id munge >/dev/null 2>&1 || { echo "scripts/slurm-setup.sh --start: the munge user does not exist: reinstall the munge package" >&2; exit 1; }
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    echo "scripts/slurm-setup.sh --start: $dir is not empty (a cluster already started there? bash scripts/slurm-setup.sh --stop $dir)" >&2
    exit 1
  fi
  mkdir -p "$dir" "$dir/state" "$dir/spool" "$dir/log"
  dir=$(cd "$dir" && pwd)
  chmod 755 "$dir" # munged must traverse to its socket folder
  local munge="$dir/munge" mungerun="$dir/munge-run" # the key, log, seed: the munge user's alone; the socket: everyone's
  mkdir -m 700 "$munge"
  mkdir -m 755 "$mungerun"
  mungekey --create --keyfile="$munge/munge.key" >/dev/null
  chown munge:munge "$munge" "$mungerun" "$munge/munge.key"
  local socket="$mungerun/munge.socket"
  runuser -u munge -- munged --socket="$socket" --key-file="$munge/munge.key" --log-file="$munge/munged.log" \
    --pid-file="$mungerun/munged.pid" --seed-file="$munge/munged.seed" || fail "munged did not start"
  local host ctld_port slurmd_port cpus mem_mib
  host=$(hostname -s)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  cpus=$(getconf _NPROCESSORS_ONLN)
  mem_mib=$(awk '/^MemTotal:/ { m = int($2 / 1024) - 1024; print (m < 1024 ? 1024 : m) }' /proc/meminfo)
  cat >"$dir/slurm.conf" <<EOF
ClusterName=$cluster_name
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld || fail "slurmctld did not start"
  slurmd || fail "slurmd did not start"
  local state=''
  for _ in $(seq 300); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.1
  done
  [ "$state" = idle ] || fail "the node did not become idle within 30 s (sinfo says '$state')"
  echo "a one-node Slurm cluster runs in $dir (slurmctld port $ctld_port, partition debug); for its commands and attnscope submit --slurm:"
  echo "  export SLURM_CONF=$dir/slurm.conf"
  echo "stop it with: bash scripts/slurm-setup.sh --stop $dir"
}

stop() {
  if [ ! -e "$dir" ]; then
    echo "no cluster in $dir"
    return 0
  fi
  if ! grep -qx "ClusterName=$cluster_name" "$dir/slurm.conf" 2>/dev/null; then
    echo "scripts/slurm-setup.sh --stop: $dir holds no cluster this script started (no slurm.conf of $cluster_name): left as it is" >&2
    exit 1
  fi
  stop_daemons
  rm -rf "$dir"
  echo "stopped the cluster in $dir and removed the folder"
}

"$mode"
