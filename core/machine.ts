/**
 * The CPU's name and signature as every run's environment records them (Environment.cpuModel,
 * Environment.cpuSignature), from one source for the runner and the extension host alike, so that
 * runs group by machine (the sweep's environment key hashes them: runner/sweep/results.ts).
 * No `vscode` import.
 */
import { readFileSync } from 'node:fs';
import { arch, cpus, platform, release } from 'node:os';
import type { Environment } from './protocol/run';

/**
 * The CPU's name: Node's os.cpus() model (Linux: /proc/cpuinfo's "model name"), trimmed;
 * 'unknown' where the OS gives none. Not the addon's CPUID brand string, which the extension
 * host cannot read (it does not load the addon) and which differs on some VMs (s34 newcomer-ed 6:
 * "AMD EPYC" in /proc/cpuinfo, "Oxide Virtual Turin-like Processor" from CPUID).
 */
export function cpuModelName(): string {
  return cpus()[0]?.model.trim() || 'unknown';
}

/**
 * The CPU's generation as /proc/cpuinfo's first processor gives it, where the name does not
 * (s39 newcomer 4: a Zen 3 and a Zen 4 VM both read "AMD EPYC"): x86 "family 25 model 17" (CPUID
 * leaf 1's display family and model, as Linux prints them in decimal), Arm "implementer 0x41 part
 * 0xd0c" (MIDR_EL1 fields); undefined where the file is absent or names neither (macOS, Windows).
 * @param cpuinfo the file's text (tests); default: read /proc/cpuinfo.
 */
export function cpuSignature(cpuinfo?: string): string | undefined {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/cpuinfo', 'latin1');
    } catch {
      return undefined;
    }
  }
  const first = text.split(/\n\s*\n/, 1)[0] ?? '';
  const field = (name: string): string | undefined => new RegExp(`^${name}\\s*:\\s*(\\S+)\\s*$`, 'm').exec(first)?.[1];
  const family = field('cpu family');
  const model = field('model');
  if (family !== undefined && model !== undefined) return `family ${family} model ${model}`;
  const implementer = field('CPU implementer');
  const part = field('CPU part');
  if (implementer !== undefined && part !== undefined) return `implementer ${implementer} part ${part}`;
  return undefined;
}

/**
 * What every run's environment names the machine by, first: `os` ("linux 6.8.0-..."), `arch`,
 * `cpuModel` ({@link cpuModelName}) and, where known, `cpuSignature` ({@link cpuSignature}); the
 * runner's runs (runner/environment.ts describeMachine) and the extension host's
 * (extension/history.ts hostEnvironment) alike.
 */
export function machineIdentity(): Pick<Environment, 'os' | 'arch' | 'cpuModel' | 'cpuSignature'> {
  const signature = cpuSignature();
  return { os: `${platform()} ${release()}`, arch: arch(), cpuModel: cpuModelName(), ...(signature ? { cpuSignature: signature } : {}) };
}
