/**
 * The latency of the last simulation of a profile, for the hover on its `workload` and `slo`
 * keys: the newest saved run (the extension's run history, `.attnscope/runs/` in a folder at or
 * above the profile — the default history folder) whose profile came from this file and whose
 * pool simulation has a latency summary. Reads at most {@link MAX_RUNS} files, newest first (run
 * files are named `yyyymmdd-hhmmss-…json`, so the name orders them), and caches the answer until
 * the folder changes. Loads no native code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CapacityCurve, LatencyStats, LatencySummary } from '../core/protocol/latency';
import { formatMs, formatRequestRate } from '../core/format';

const MAX_RUNS = 30;

export interface LastSimulation {
  /** The run file. */
  file: string;
  createdAt: string;
  latency: LatencySummary;
  capacity?: CapacityCurve;
}

const cache = new Map<string, { mtimeMs: number; byProfile: Map<string, LastSimulation | null> }>();

/** The `.attnscope/runs` folder at or above `dir`, or null. */
function runsFolder(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, '.attnscope', 'runs');
    try {
      if (statSync(candidate).isDirectory()) return candidate;
    } catch {
      // not here
    }
    if (dirname(d) === d) return null;
  }
}

/** The newest saved simulation of the profile at `profilePath` (absolute), or null. Never throws. */
export function lastSimulation(profilePath: string): LastSimulation | null {
  const folder = runsFolder(dirname(profilePath));
  if (folder === null) return null;
  let mtimeMs: number;
  let names: string[];
  try {
    mtimeMs = statSync(folder).mtimeMs;
    names = readdirSync(folder).filter((n) => n.endsWith('.json'));
  } catch {
    return null;
  }
  let entry = cache.get(folder);
  if (!entry || entry.mtimeMs !== mtimeMs) cache.set(folder, (entry = { mtimeMs, byProfile: new Map() }));
  const known = entry.byProfile.get(profilePath);
  if (known !== undefined) return known;
  let found: LastSimulation | null = null;
  for (const name of names.sort().reverse().slice(0, MAX_RUNS)) {
    try {
      const run = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { createdAt?: string; profile?: { sourcePath?: string }; pool?: { latency?: LatencySummary; capacity?: CapacityCurve } };
      if (run.profile?.sourcePath !== profilePath || !run.pool?.latency) continue;
      found = { file: join(folder, name), createdAt: run.createdAt ?? '', latency: run.pool.latency, capacity: run.pool.capacity };
      break;
    } catch {
      // not a readable run: skip it
    }
  }
  entry.byProfile.set(profilePath, found);
  return found;
}

/** A latency given in seconds, as core/format writes durations ("42.5 ms", "3.27 h"). */
const dur = (s: number): string => formatMs(s * 1000);

/** The hover's markdown: percentile table, throughput, goodput and, when searched, the highest rate. */
export function latencyMarkdown(last: LastSimulation): string {
  const l = last.latency;
  const row = (name: string, x: LatencyStats | null) => (x ? `| ${name} | ${dur(x.mean)} | ${dur(x.p50)} | ${dur(x.p90)} | ${dur(x.p99)} |` : `| ${name} | n/a | n/a | n/a | n/a |`);
  const lines = [
    `**Last simulation** (${last.createdAt}, modelled on the step-time model) — ${l.requests.toLocaleString('en-US')} requests`,
    '',
    '| modelled | mean | p50 | p90 | p99 |',
    '|---|---:|---:|---:|---:|',
    row('queueing delay', l.queue),
    row('TTFT', l.ttft),
    row('TPOT', l.tpot),
    row('end-to-end', l.e2e),
    ...[...new Set(Object.values(l.unmeasured ?? {}))].map((why) => `\nn/a: ${why}.`),
    '',
    `Throughput ${formatRequestRate(l.requestsPerSec)} requests/s, ${Math.round(l.outputTokensPerSec).toLocaleString('en-US')} output tokens/s.`,
  ];
  if (l.slo && l.goodputRequestsPerSec !== undefined) {
    const bounds = [l.slo.ttftMs !== undefined ? `TTFT <= ${formatMs(l.slo.ttftMs)}` : null, l.slo.tpotMs !== undefined ? `TPOT <= ${formatMs(l.slo.tpotMs)}` : null].filter((x) => x !== null).join(', ');
    lines.push(`Goodput ${formatRequestRate(l.goodputRequestsPerSec)} requests/s meet ${bounds} (${(100 * (l.sloAttainment ?? 0)).toFixed(1)} % of requests).`);
  }
  const c = last.capacity;
  if (c?.maxRate !== null && c?.maxRate !== undefined) {
    lines.push(c.limit === 'capacity'
      ? `Highest rate the server keeps up with: ${formatRequestRate(c.maxRate)} requests/s (capacity is the limit, not the SLO).`
      : `Highest rate meeting the SLO: ${formatRequestRate(c.maxRate)} requests/s.`);
  }
  lines.push('', `From ${last.file}.`);
  return lines.join('\n');
}
