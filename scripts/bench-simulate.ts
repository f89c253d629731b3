/**
 * Speed of the pool simulation (issue 5: 100,000 requests in under 1 s).
 * Usage: npm run bench:simulate [-- PROFILE] [--requests N] [--repeat R]
 * Default: examples/llama-3.1-8b.attn.yaml with its workload stretched to 100,000 requests.
 * Prints wall time of each full simulatePool call (workload generation, the paged run, both
 * contiguous baselines) and requests per second; the figure to quote is the median.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readProfile } from '../core/config/index';
import { simulatePool } from '../runner/simulate/index';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const file = resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'examples/llama-3.1-8b.attn.yaml');
const requests = flag('--requests', 100_000);
const repeat = flag('--repeat', 3);

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

const times: number[] = [];
let last = simulatePool(profile, { maxSamples: 2000 });
for (let i = 0; i < repeat; i++) {
  const t0 = process.hrtime.bigint();
  last = simulatePool(profile);
  times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  console.error(`run ${i + 1}/${repeat}: ${times[i].toFixed(3)} s`);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const s = last.summary;
console.log(`profile: ${file}`);
console.log(`requests: ${requests} (completed ${s.completed}, rejected ${s.rejected}, preemptions ${s.preemptions}), pool ${last.numPages} pages × ${last.pageSize}`);
console.log(`simulated: ${s.simulatedSeconds.toFixed(1)} s of serving, ${last.samples.length} samples`);
console.log(`wall time: median ${median.toFixed(3)} s, min ${times[0].toFixed(3)} s over ${repeat} runs (paged run + 2 baselines)`);
console.log(`throughput: ${Math.round(requests / median).toLocaleString('en-US')} requests/s`);
