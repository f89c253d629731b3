/**
 * The CPU's name as every run's environment records it (Environment.cpuModel), from one source
 * for the runner and the extension host alike, so that runs group by machine (the sweep's
 * environment key hashes it: runner/sweep/results.ts). No `vscode` import.
 */
import { cpus } from 'node:os';

/**
 * The CPU's name: Node's os.cpus() model (Linux: /proc/cpuinfo's "model name"), trimmed;
 * 'unknown' where the OS gives none. Not the addon's CPUID brand string, which the extension
 * host cannot read (it does not load the addon) and which differs on some VMs (s34 newcomer-ed 6:
 * "AMD EPYC" in /proc/cpuinfo, "Oxide Virtual Turin-like Processor" from CPUID).
 */
export function cpuModelName(): string {
  return cpus()[0]?.model.trim() || 'unknown';
}
