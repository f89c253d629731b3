/**
 * The default of every `attnscope.*` setting the extension reads (extension/config.ts, whose
 * Settings type this must fit), as package.json declares it ("contributes.configuration";
 * test/unit/manifest.test.ts holds the two equal). Apart from config.ts, and importing nothing
 * but jsonc-parser, so that a test can read it without `vscode`.
 */
import * as jsonc from 'jsonc-parser';

export const SETTING_DEFAULTS = {
  backend: 'auto',
  historyFolder: '.attnscope/runs',
  quickMode: false,
  runnerPath: '',
  nodePath: '',
  openDashboardOnRun: true,
} as const;

/** A setting as package.json declares it: the parts settingProblems and ignoredMachineSettings check. */
export interface DeclaredSetting {
  type?: string;
  enum?: readonly unknown[];
  default?: unknown;
  /** VS Code's configuration scope; "machine": read only from the User settings, or a remote window's Remote settings. */
  scope?: string;
}

/** A value of an `attnscope.*` setting as one settings file (or one of VS Code's scopes) holds it, and that place in words. */
export interface WrittenSetting {
  /** Where it is written, as a user finds it: "the workspace settings (/ws/.vscode/settings.json)". */
  where: string;
  /** The value there (undefined: not set there). */
  value: unknown;
}

/**
 * The values of machine-scoped settings (package.json `"scope": "machine"`: runnerPath, nodePath)
 * written where VS Code does not read them, one message each, naming the value in force instead.
 * VS Code reads such a setting from the User settings, or in a remote window from the Remote
 * settings (code-server's Machine/settings.json); a value in the workspace or a folder's
 * .vscode/settings.json is dropped without a word, and the runner ran as the bundled one (s51
 * newcomer-ed LOW-3; the newcomer saw code-server's User value dropped too, where the s52 e2e saw
 * it read: whichever VS Code does, the value in force tells). A written value is ignored when it differs from the one in force
 * (`inForce`, keys without the `attnscope.` prefix, as the extension reads them; strings trimmed):
 * where it equals it, it is either the one read or changes nothing. `written` maps the same keys to
 * the places holding a value (the settings files read, and the scopes configuration.inspect()
 * gives); `declared` is package.json's contributes.configuration.properties.
 */
export function ignoredMachineSettings(inForce: Record<string, unknown>, written: Record<string, readonly WrittenSetting[]>, declared: Record<string, DeclaredSetting>): string[] {
  const messages: string[] = [];
  for (const [name, decl] of Object.entries(declared)) {
    if (decl.scope !== 'machine') continue;
    const key = name.replace(/^attnscope\./, '');
    const used = inForce[key];
    const usedText = used === '' || used === undefined ? (key === 'runnerPath' ? 'the bundled runner' : key === 'nodePath' ? 'the default Node' : 'its default') : JSON.stringify(used);
    const said = new Set<string>();
    for (const { where, value } of written[key] ?? []) {
      // One message a value: a place read twice (a settings file, and the scope inspect() gives for it) says it once.
      if (value === undefined || (typeof value === 'string' ? value.trim() : value) === used || said.has(JSON.stringify(value))) continue;
      said.add(JSON.stringify(value));
      messages.push(`setting ${name} ${JSON.stringify(value)} in ${where} is ignored: a machine setting is read from the User settings, or in a remote window from the Remote settings (code-server: Machine/settings.json); ${usedText} is used`);
    }
  }
  return messages;
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

/**
 * The value a settings file's text gives setting `name` ("attnscope.runnerPath"), as VS Code reads
 * it: JSON with comments and trailing commas, the key dotted at the top ("attnscope.runnerPath": …)
 * or nested ("attnscope": { "runnerPath": … }); a workspace file (`workspaceFile`, .code-workspace)
 * holds its settings under "settings". Undefined when the text does not set it or is no object.
 */
export function settingInFile(text: string, name: string, workspaceFile = false): unknown {
  const all: unknown = jsonc.parse(text, [], { allowTrailingComma: true });
  const settings = workspaceFile ? (all as { settings?: unknown } | null | undefined)?.settings : all;
  if (!settings || typeof settings !== 'object' || Array.isArray(settings)) return undefined;
  const top = settings as Record<string, unknown>;
  const dot = name.indexOf('.');
  const nested = top[name.slice(0, dot)];
  return top[name] ?? (nested && typeof nested === 'object' ? (nested as Record<string, unknown>)[name.slice(dot + 1)] : undefined);
}
