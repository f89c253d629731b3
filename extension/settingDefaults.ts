/**
 * The default of every `attnscope.*` setting the extension reads (extension/config.ts, whose
 * Settings type this must fit), as package.json declares it ("contributes.configuration";
 * test/unit/manifest.test.ts holds the two equal). Apart from config.ts, and importing nothing,
 * so that a test can read it without `vscode`.
 */
export const SETTING_DEFAULTS = {
  backend: 'auto',
  historyFolder: '.attnscope/runs',
  quickMode: false,
  runnerPath: '',
  nodePath: '',
  openDashboardOnRun: true,
} as const;

/** A setting as package.json declares it: the parts settingProblems checks. */
export interface DeclaredSetting {
  type?: string;
  enum?: readonly unknown[];
  default?: unknown;
}

/**
 * What is wrong with the `attnscope.*` values a user set, one message each, naming the value used
 * instead: a value of the wrong JSON type or outside the declared enum (VS Code underlines it in
 * settings.json, but the reader falls back to the default without a word: s33 newcomer, `backend:
 * "tpu"` ran as "auto", `hints: "bogus"` as "all"), and a relative historyFolder that climbs out
 * of the workspace folder (kept: an absolute path is the way to mean it). `values` maps keys
 * without the `attnscope.` prefix to what the user set (undefined = unset); `declared` is
 * package.json's contributes.configuration.properties. Only `type` and `enum` are checked: they
 * are all the declarations use.
 */
export function settingProblems(values: Record<string, unknown>, declared: Record<string, DeclaredSetting>): string[] {
  const problems: string[] = [];
  const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  for (const [name, decl] of Object.entries(declared)) {
    const key = name.replace(/^attnscope\./, '');
    const value = values[key];
    if (value === undefined) continue;
    const used = `${JSON.stringify(decl.default)} is used`;
    if (decl.type && typeOf(value) !== decl.type) problems.push(`setting ${name} is ${JSON.stringify(value)}, not a ${decl.type}: ${used}`);
    else if (decl.enum && !decl.enum.includes(value)) problems.push(`setting ${name} is ${JSON.stringify(value)}, not one of ${decl.enum.map((e) => JSON.stringify(e)).join(', ')}: ${used}`);
  }
  const folder = values['historyFolder'];
  if (typeof folder === 'string' && !folder.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(folder) && folder.split(/[\\/]/).reduce((depth, part) => (depth < 0 ? depth : part === '..' ? depth - 1 : part === '.' || part === '' ? depth : depth + 1), 0) < 0) {
    problems.push(`setting attnscope.historyFolder ${JSON.stringify(folder)} leads outside the workspace folder: runs are saved there (give an absolute path if that is meant)`);
  }
  return problems;
}
