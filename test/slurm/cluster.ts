/**
 * A real one-node Slurm cluster for the sweep's scheduler test (Debian's slurm-wlm 22.05 and
 * munge; /work/shared/notes/slurm-single-node.md): its own munge key and socket, its own
 * slurm.conf, state, spool, logs and ports in a fresh folder, so it touches nothing of the
 * machine's. `stop` kills exactly the daemons it started (by the pids they wrote) and removes
 * the folder. Needs root (slurmd runs jobs as their user).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, totalmem, cpus, userInfo } from 'node:os';
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

const tail = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').slice(-8).join('\n') : `(no ${path})`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 100 ms until it returns true or `ms` pass; returns whether it did. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts munged, slurmctld and slurmd, and waits until the node is idle.
 * @throws Error with the reason and the daemons' log tails when a daemon does not come up
 *   (whatever did start is stopped first).
 */
export async function startCluster(): Promise<Cluster> {
  const dir = tempDir('attnscope-slurm-');
  chmodSync(dir, 0o755); // munged must traverse to its socket folder
  const munge = join(dir, 'munge'); // key, log, seed: the munge user's alone
  const mungeRun = join(dir, 'munge-run'); // the socket: reachable by everyone
  for (const d of ['state', 'spool', 'log']) mkdirSync(join(dir, d));
  mkdirSync(munge, { mode: 0o700 });
  mkdirSync(mungeRun, { mode: 0o755 });
  const key = join(munge, 'munge.key');
  execFileSync('mungekey', ['--create', `--keyfile=${key}`], { stdio: 'pipe' });
  const uid = Number(execFileSync('id', ['-u', 'munge'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'munge'], { encoding: 'utf8' }));
  for (const p of [munge, mungeRun, key]) chownSync(p, uid, gid);
  const socket = join(mungeRun, 'munge.socket');
  const pids = { munged: join(mungeRun, 'munged.pid'), slurmctld: join(dir, 'slurmctld.pid'), slurmd: join(dir, 'slurmd.pid') };

  const started: number[] = [];
  const stop = async () => {
    for (const file of Object.values(pids)) {
      if (!existsSync(file)) continue;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid > 0 && !started.includes(pid)) started.push(pid);
    }
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGTERM');
    await until(() => started.every((pid) => !alive(pid)), 15_000);
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    started.length = 0;
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const m = spawnSync('runuser', ['-u', 'munge', '--', 'munged', `--socket=${socket}`, `--key-file=${key}`, `--log-file=${join(munge, 'munged.log')}`, `--pid-file=${pids.munged}`, `--seed-file=${join(munge, 'munged.seed')}`], { encoding: 'utf8' });
    if (m.status !== 0) throw new Error(`munged did not start (exit ${m.status}): ${(m.stderr || m.stdout).trim()}`);
    const host = hostname().split('.')[0]!;
    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    const memMiB = Math.max(1024, Math.floor(totalmem() / 2 ** 20) - 1024);
    const conf = join(dir, 'slurm.conf');
    writeFileSync(
      conf,
      [
        'ClusterName=attnscopetest',
        `SlurmctldHost=${host}`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${slurmdPort}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        'AuthType=auth/munge',
        `AuthInfo=socket=${socket}`,
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${pids.slurmctld}`,
        `SlurmdPidFile=${pids.slurmd}`,
        `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'log', 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'ReturnToService=2',
        'SchedulerType=sched/backfill',
        'MpiDefault=none',
        'JobAcctGatherType=jobacct_gather/none',
        `NodeName=${host} CPUs=${cpus().length} RealMemory=${memMiB} State=UNKNOWN`,
        `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        '',
      ].join('\n'),
    );
    const env = { ...process.env, SLURM_CONF: conf };
    for (const daemon of ['slurmctld', 'slurmd'] as const) {
      const r = spawnSync(daemon, [], { env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${daemon} did not start (exit ${r.status}): ${(r.stderr || r.stdout).trim()}\n${tail(join(dir, 'log', `${daemon}.log`))}`);
    }
    const sinfo = () => spawnSync('sinfo', ['-h', '-o', '%T'], { env, encoding: 'utf8' }).stdout?.trim() ?? '';
    if (!(await until(() => sinfo() === 'idle', 30_000))) {
      throw new Error(`the node did not become idle within 30 s (sinfo says '${sinfo()}')\nslurmctld: ${tail(join(dir, 'log', 'slurmctld.log'))}\nslurmd: ${tail(join(dir, 'log', 'slurmd.log'))}`);
    }
    return { dir, env, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
