/**
 * Speed of the pool simulation (issue 5: 100,000 requests in under 1 s; issue 12: a capacity
 * search over a 10,000-request trace in under 5 s).
 * Usage: npm run bench:simulate [-- PROFILE] [--requests N] [--repeat R] [--search-requests M]
 * Default: examples/llama-3.1-8b.attn.yaml with its workload stretched to 100,000 requests.
 * Prints wall and CPU time of each full simulatePool call (workload generation, the paged run,
 * both contiguous baselines) and requests per second; the figures to quote are the medians.
 * CPU time is the whole process's (both threads: the baselines run on the simulation worker
 * beside the paged run) and, on Linux, this thread's alone: the critical path, which is the wall
 * time of an otherwise idle machine with two cores. The load average is printed with them.
 * Then times one capacity search (searchCapacity, SLO TTFT <= 1 s, TPOT <= 60 ms) over a
 * 10,000-request trace: the profile's workload drawn at its seed, packed as a trace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { readProfile } from '../core/config/index';
import { generateRequests, searchCapacity, simulatePool } from '../runner/simulate/index';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const file = resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'examples/llama-3.1-8b.attn.yaml');
const requests = flag('--requests', 100_000);
const repeat = flag('--repeat', 5);
const searchRequests = flag('--search-requests', 10_000);

const read = readProfile(readFileSync(file, 'utf8'), file, {
  readFile: (p) => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return null;
    }
  },
});
if (!read.value?.workload) {
  console.error(`${file}: no usable profile with a workload (${read.problems.map((p) => p.message).join('; ')})`);
  process.exit(2);
}
const profile = { ...read.value, workload: { ...read.value.workload, requests } };

// Wall time is what a user waits; CPU time (user + system of this process) is the work done,
// which stays comparable when other processes share the cores.
const THREAD_STAT = '/proc/thread-self/stat';
const ticksPerSecond = 100; // USER_HZ, 100 on every Linux ABI Node supports
/** CPU seconds of the calling thread (utime + stime, fields 14 and 15 of its stat); NaN without /proc. */
function threadCpuSeconds(): number {
  if (!existsSync(THREAD_STAT)) return NaN;
  const stat = readFileSync(THREAD_STAT, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / ticksPerSecond;
}
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
async function main(): Promise<void> {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const threadTimes: number[] = [];
  const loadBefore = load();
  let last = await simulatePool(profile); // warm-up (JIT, addon load)
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const th0 = threadCpuSeconds();
    last = await simulatePool(profile);
    const cpu = process.cpuUsage(c0);
    threadTimes.push(threadCpuSeconds() - th0);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    cpuTimes.push((cpu.user + cpu.system) / 1e6);
    console.error(`run ${i + 1}/${repeat}: wall ${times[i].toFixed(3)} s, CPU ${cpuTimes[i].toFixed(3)} s (this thread ${threadTimes[i].toFixed(2)} s)`);
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const s = last.summary;
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} CPUs; load average ${loadBefore} before, ${load()} after`);
  console.log(`profile: ${file}`);
  console.log(`requests: ${requests} (completed ${s.completed}, rejected ${s.rejected}, preemptions ${s.preemptions}), pool ${last.numPages} pages × ${last.pageSize}`);
  console.log(`simulated: ${s.simulatedSeconds.toFixed(1)} s of serving, ${last.samples.length} samples`);
  console.log(`wall time: median ${median(times).toFixed(3)} s, min ${Math.min(...times).toFixed(3)} s over ${repeat} runs (workload, paged run, 2 baselines)`);
  console.log(`CPU time: median ${median(cpuTimes).toFixed(3)} s, min ${Math.min(...cpuTimes).toFixed(3)} s (both threads); this thread: median ${median(threadTimes).toFixed(2)} s (the critical path; 10 ms ticks)`);
  console.log(`throughput: ${Math.round(requests / median(times)).toLocaleString('en-US')} requests/s wall, ${Math.round(requests / median(cpuTimes)).toLocaleString('en-US')} requests/s per CPU second`);

  const trace = generateRequests({ ...profile.workload!, requests: searchRequests });
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const th0 = threadCpuSeconds();
  const { curve } = await searchCapacity(profile, { slo: { ttftMs: 1000, tpotMs: 60 }, requests: trace });
  const cpu = process.cpuUsage(c0);
  const thread = threadCpuSeconds() - th0;
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`capacity search over ${searchRequests.toLocaleString('en-US')} trace requests: ${curve.points.length} simulations, wall ${wall.toFixed(3)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(3)} s (this thread ${thread.toFixed(2)} s), load average ${load()}; highest rate meeting TTFT <= 1 s, TPOT <= 60 ms: ${curve.maxRate?.toPrecision(4) ?? 'none'} requests/s (modelled)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
