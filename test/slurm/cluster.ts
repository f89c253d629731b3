/**
 * A real one-node Slurm cluster for the sweep's scheduler test (Debian's slurm-wlm 22.05 and
 * munge; /work/shared/notes/slurm-single-node.md), started and stopped by scripts/slurm-setup.sh
 * --start / --stop, the same cluster a user starts by hand: its own munge key and socket, its own
 * slurm.conf, state, spool, logs and ports in a fresh folder, so it touches nothing of the
 * machine's. `stop` kills exactly the daemons it started (by the pids they wrote) and removes
 * the folder. Needs root (slurmd runs jobs as their user).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../fixtures/tmp';

export interface Cluster {
  /** The folder holding everything (slurm.conf, state, logs). */
  dir: string;
  /** Environment every Slurm command needs (SLURM_CONF). */
  env: NodeJS.ProcessEnv;
  /** Kills the daemons, waits for them to exit, removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Why the cluster cannot start here, or null. */
export function missingPrerequisite(): string | null {
  const tools = ['munged', 'mungekey', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'sinfo', 'scontrol', 'runuser'];
  const missing = tools.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` } }).status !== 0);
  if (missing.length > 0) return `${missing.join(', ')} not found: install Debian's slurm-wlm and munge (bash scripts/slurm-setup.sh)`;
  if (userInfo().uid !== 0) return 'the Slurm test starts slurmd, which must run as root: run it as root (as CI does)';
  try {
    execFileSync('id', ['munge'], { stdio: 'ignore' });
  } catch {
    return 'the munge user does not exist: reinstall the munge package';
  }
  return null;
}

const setupScript = join(__dirname, '..', '..', 'scripts', 'slurm-setup.sh');

/**
 * Starts the one-node cluster of `bash scripts/slurm-setup.sh --start DIR` (munged, slurmctld and
 * slurmd, waiting until the node is idle) in a fresh folder: the cluster a user starts by hand.
 * @throws Error with the script's reason and the daemons' log tails when a daemon does not come
 *   up (the script stops whatever did start).
 */
export async function startCluster(): Promise<Cluster> {
  const dir = tempDir('attnscope-slurm-');
  const r = spawnSync('bash', [setupScript, '--start', dir], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`the one-node cluster did not start (exit ${r.status}):\n${r.stderr}${r.stdout}`);
  const conf = join(dir, 'slurm.conf');
  assert.ok(r.stdout.includes(`export SLURM_CONF=${conf}`), r.stdout);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const s = spawnSync('bash', [setupScript, '--stop', dir], { encoding: 'utf8', timeout: 60_000 });
    if (s.status !== 0) throw new Error(`the one-node cluster did not stop (exit ${s.status}): ${s.stderr}`);
  };
  return { dir, env: { ...process.env, SLURM_CONF: conf }, stop };
}
