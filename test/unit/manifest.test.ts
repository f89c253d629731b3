/**
 * package.json (the extension manifest) and the code in step: the version the runner records,
 * the contributed commands and the command table, the setting defaults and the settings
 * reader's, and the files the extension activates on and offers commands for against the
 * file-kind predicate (core/config/fileKinds.ts) the server and the extension share.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { minimatch } from 'minimatch';
import { FILE_GLOBS, isConfigPath, isProfilePath } from '../../core/config/fileKinds';
import { Commands } from '../../core/protocol/lsp';
import { ignoredMachineSettings, settingInFile, settingProblems, SETTING_DEFAULTS } from '../../extension/settingDefaults';
import { HINT_MODES, hintMode } from '../../server/hintView';
import { TOOL_VERSION } from '../../runner/version';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

test('one version: package.json, its lock file, and what the runner writes into every run', () => {
  assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
  assert.equal(lock.version, manifest.version);
  assert.equal(lock.packages[''].version, manifest.version);
  assert.equal(TOOL_VERSION, manifest.version);
});

test('the contributed commands are the command table, and menus name only those', () => {
  const contributed: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command);
  assert.deepEqual([...contributed].sort(), Object.values(Commands).sort());
  assert.equal(new Set(contributed).size, contributed.length, 'each command contributed once');
  for (const [menu, items] of Object.entries(manifest.contributes.menus as Record<string, Array<{ command: string }>>)) {
    for (const item of items) assert.ok(contributed.includes(item.command), `${menu} names ${item.command}, which is not contributed`);
  }
});

test('the walkthrough\'s steps show files that ship and link only contributed commands', () => {
  const contributed = new Set<string>(manifest.contributes.commands.map((c: { command: string }) => c.command));
  const steps = (manifest.contributes.walkthroughs as Array<{ steps: Array<{ id: string; description: string; media: { markdown?: string }; completionEvents?: string[] }> }>).flatMap((w) => w.steps);
  assert.ok(steps.length >= 4);
  for (const step of steps) {
    assert.ok(step.media.markdown && readFileSync(join(root, step.media.markdown), 'utf8').length > 0, `${step.id}: its markdown ships`);
    const links = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]);
    assert.ok(links.length > 0, `${step.id}: a button to act`);
    for (const c of [...links, ...(step.completionEvents ?? []).map((e) => e.replace(/^onCommand:/, ''))]) assert.ok(contributed.has(c), `${step.id} names ${c}, which is not contributed`);
  }
});

test('every setting package.json declares has the settings reader\'s default, and the reader reads no other', () => {
  const properties = manifest.contributes.configuration.properties as Record<string, { default: unknown; scope: string }>;
  // attnscope.trace.server is read by vscode-languageclient itself (the client's id is 'attnscope');
  // attnscope.hints by the language server (server/hintView.ts hintMode), through the client's synchronised section.
  const readElsewhere = new Set(['attnscope.trace.server', 'attnscope.hints']);
  const declared = Object.fromEntries(Object.entries(properties).filter(([key]) => !readElsewhere.has(key)).map(([key, p]) => [key.replace(/^attnscope\./, ''), p.default]));
  assert.deepEqual(declared, { ...SETTING_DEFAULTS });
  assert.equal(properties['attnscope.trace.server']?.default, 'off');
  assert.equal(properties['attnscope.hints']?.default, hintMode(undefined), 'the server\'s default hint mode is the declared one');
  assert.deepEqual((properties['attnscope.hints'] as unknown as { enum: string[] }).enum, [...HINT_MODES]);
  for (const key of manifest.capabilities.untrustedWorkspaces.restrictedConfigurations as string[]) {
    assert.equal(properties[key]?.scope, 'machine', `${key}: a restricted setting that is not machine-scoped`);
  }
});

/**
 * Names on either side of the file-kind predicate (core/config/fileKinds.ts), which the server,
 * the document selector and the file pickers use. Not here, because globs and the predicate
 * part on them: upper-case names (the predicate takes any case, VS Code's globs are
 * case-sensitive on Linux) and a bare suffix such as `.attn.yaml` (no profile to the predicate;
 * `*` matches the empty stem).
 */
const NAMES = [
  'llama.attn.yaml', 'serve/llama.attn.yml', 'a/b/qwen.attn.json', 'attn.yaml', 'llama.attn.yaml.bak', 'llama.yaml',
  'config.json', 'models/llama/config.json', 'llama.config.json', 'x/gpt2.config.json', 'myconfig.json', 'config.jsonc', 'tsconfig.json', 'config.json.bak', 'llama-3-8b.json',
];
const isServed = (name: string) => isProfilePath(name) || isConfigPath(name);

test('the extension activates on exactly the files the file-kind predicate accepts', () => {
  const patterns = (manifest.activationEvents as string[]).filter((e) => e.startsWith('workspaceContains:')).map((e) => e.slice('workspaceContains:'.length));
  assert.deepEqual(patterns, FILE_GLOBS, 'package.json activates on the globs of core/config/fileKinds.ts');
  for (const name of NAMES) {
    const activates = patterns.some((p) => minimatch(name, p, { dot: true }));
    assert.equal(activates, isServed(name), `${name}: activation ${activates}, server ${isServed(name)}`);
  }
});

/**
 * The language VS Code gives a file by its name's ending: its built-in yaml extension declares
 * .yaml and .yml (extensions/yaml/package.json), its json extension .json (extensions/json/package.json).
 */
function builtInLanguage(name: string): string | undefined {
  if (/\.ya?ml$/i.test(name)) return 'yaml';
  if (/\.json$/i.test(name)) return 'json';
  return undefined;
}

// s33 newcomer-ed 1: VS Code's workspaceContains search has a time limit; on a loaded machine it
// ran out ("Timed out while searching for 'workspaceContains' pattern") and the extension never
// activated, even when a profile was then opened. Opening any file the server reads must activate it.
test('opening a profile or config activates the extension whatever the workspaceContains search did', () => {
  const events = manifest.activationEvents as string[];
  for (const name of NAMES.filter(isServed)) {
    const language = builtInLanguage(name);
    assert.ok(language && events.includes(`onLanguage:${language}`), `${name} (language ${language}) activates only through workspaceContains`);
  }
});

test('the editor title and explorer offer the commands on exactly those files', () => {
  const whens = Object.values(manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>)
    .flat()
    .filter((m) => m.command === Commands.runBenchmark || m.command === Commands.showMemoryBreakdown)
    .map((m) => /resourceFilename =~ \/(.*)\/ ?/.exec(m.when ?? '')?.[1]);
  assert.ok(whens.length >= 2 && whens.every((w) => w !== undefined), 'each menu entry names its files by resourceFilename');
  for (const when of new Set(whens)) {
    const re = new RegExp(when!);
    for (const name of NAMES) {
      const base = name.split('/').pop()!;
      assert.equal(re.test(base), isServed(name), `${name}: menu ${re.test(base)}, server ${isServed(name)}`);
    }
  }
  // A simulation needs a profile's workload, a sweep its sweep block: offered on profiles only (a config.json has neither).
  const simulate = Object.values(manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>).flat().filter((m) => m.command === Commands.runSimulation || m.command === Commands.runSweep);
  assert.deepEqual([...new Set(simulate.map((m) => m.command))].sort(), [Commands.runSimulation, Commands.runSweep]);
  for (const m of simulate) {
    const re = new RegExp(/resourceFilename =~ \/(.*)\/ ?/.exec(m.when ?? '')![1]!);
    for (const name of NAMES) assert.equal(re.test(name.split('/').pop()!), isProfilePath(name), `${name}: simulate menu ${re.test(name)}`);
  }
});

test("README names exactly the files the editor reads (the file-kind predicate's globs), and what to do with another name", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const paragraph = /The editor reads these files, by name:[^]*?\n\n/.exec(readme)?.[0];
  assert.ok(paragraph, "README has no paragraph 'The editor reads these files, by name:'");
  const [named] = paragraph.split('. A config under any other name');
  const names = [...named!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((n) => /\.(json|ya?ml)$/.test(n));
  assert.deepEqual([...names].sort(), FILE_GLOBS.map((g) => g.replace(/^\*\*\//, '')).sort());
  // The example of another name is one the editor indeed does not read, and its suggested name one it does.
  assert.match(paragraph, /`llama-3-8b\.json`, gets no diagnostics or hints: rename it `llama-3-8b\.config\.json`/);
  assert.equal(isServed('llama-3-8b.json'), false);
  assert.equal(isServed('llama-3-8b.config.json'), true);
});

test('allowScripts decides, true or false, for every locked package with an install script', () => {
  // npm warns "N packages have install scripts not yet covered by allowScripts" for each
  // package-lock entry with hasInstallScript whose name allowScripts does not list; README's
  // install notes say why each is true or false. Names come from the lock's node_modules/ paths.
  const withScripts = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)) {
    if (entry.hasInstallScript && path !== '') withScripts.add(path.slice(path.lastIndexOf('node_modules/') + 13));
  }
  // At the time of writing these four besides esbuild (a hand count of the lock's entries).
  for (const name of ['@vscode/vsce-sign', 'keytar', 'protobufjs', 'onnxruntime-node']) assert.ok(withScripts.has(name), name);
  const uncovered = [...withScripts].filter((n) => typeof manifest.allowScripts?.[n] !== 'boolean');
  assert.deepEqual(uncovered, []);
});

test('settings set to a wrong type or outside their enum are named with the value used instead; a history folder climbing out of the workspace is named', () => {
  // package.json: backend enum auto/cpu/cuda (default auto), hints enum all/key/off (default all),
  // quickMode boolean (default false). The s33 newcomer's settings.json ran "tpu" as auto and
  // "bogus" as all without a word.
  const properties = manifest.contributes.configuration.properties as Record<string, { type?: string; enum?: unknown[]; default?: unknown }>;
  assert.deepEqual(settingProblems({ backend: 'tpu', hints: 'bogus', quickMode: 'yes', historyFolder: '../escape-runs' }, properties), [
    'setting attnscope.backend is "tpu", not one of "auto", "cpu", "cuda": "auto" is used',
    'setting attnscope.quickMode is "yes", not a boolean: false is used',
    'setting attnscope.hints is "bogus", not one of "all", "key", "off": "all" is used',
    'setting attnscope.historyFolder "../escape-runs" leads outside the workspace folder: runs are saved there (give an absolute path if that is meant)',
  ]);
  // What is right says nothing: valid values, unset ones, an absolute folder, a folder that goes up and back in.
  assert.deepEqual(settingProblems({ backend: 'cpu', hints: 'key', quickMode: true, historyFolder: 'runs/../other' }, properties), []);
  assert.deepEqual(settingProblems({ historyFolder: '/srv/runs' }, properties), []);
  assert.deepEqual(settingProblems({}, properties), []);
});

// s51 newcomer-ed LOW-3: attnscope.runnerPath "/tmp/nope-runner.js" in the workspace settings, or in code-server's User
// settings, ran the bundled runner without a word (only Machine/settings.json is read there: a machine setting).
test('a machine setting written where VS Code ignores it is named, with the value in force; one in force, or equal to it, is not', () => {
  const properties = manifest.contributes.configuration.properties as Record<string, { scope?: string }>;
  // The two machine-scoped settings are the runner's (package.json's "scope": "machine").
  assert.deepEqual(Object.keys(properties).filter((k) => properties[k]!.scope === 'machine').sort(), ['attnscope.nodePath', 'attnscope.runnerPath']);
  const ws = 'the workspace settings (/ws/.vscode/settings.json)';
  const user = 'the User settings (/home/u/.local/share/code-server/User/settings.json)';
  const why = 'a machine setting is read from the User settings, or in a remote window from the Remote settings (code-server: Machine/settings.json)';
  // code-server, nothing in Machine/settings.json: in force '' (the bundled runner), the workspace's and the User file's values ignored;
  // a scope inspect() gives (its workspaceValue) with the same value is the same place: said once.
  assert.deepEqual(ignoredMachineSettings({ runnerPath: '', nodePath: '' }, {
    runnerPath: [{ where: ws, value: '/tmp/nope-runner.js' }, { where: user, value: '/tmp/user-runner.js' }, { where: 'the workspace settings', value: '/tmp/nope-runner.js' }],
    nodePath: [{ where: ws, value: '/opt/node/bin/node' }],
  }, properties), [
    `setting attnscope.runnerPath "/tmp/nope-runner.js" in ${ws} is ignored: ${why}; the bundled runner is used`,
    `setting attnscope.runnerPath "/tmp/user-runner.js" in ${user} is ignored: ${why}; the bundled runner is used`,
    `setting attnscope.nodePath "/opt/node/bin/node" in ${ws} is ignored: ${why}; the default Node is used`,
  ]);
  // Machine/settings.json sets another runner: the User file's is ignored, that one is used.
  assert.deepEqual(ignoredMachineSettings({ runnerPath: '/srv/runner.js' }, { runnerPath: [{ where: user, value: '/tmp/user-runner.js' }] }, properties), [
    `setting attnscope.runnerPath "/tmp/user-runner.js" in ${user} is ignored: ${why}; "/srv/runner.js" is used`,
  ]);
  // A desktop window: the User value is the one in force (inspect's globalValue, the file's, with spaces around it); unset places say nothing.
  assert.deepEqual(ignoredMachineSettings({ runnerPath: '/srv/runner.js', nodePath: '' }, {
    runnerPath: [{ where: user, value: ' /srv/runner.js ' }, { where: 'the User settings', value: '/srv/runner.js' }, { where: ws, value: undefined }],
    nodePath: [{ where: ws, value: undefined }],
  }, properties), []);
  // The files' values as VS Code reads them: comments and a trailing comma, the key dotted or nested; a workspace file's under "settings".
  assert.equal(settingInFile('{\n  // the runner\n  "attnscope.runnerPath": "/tmp/nope-runner.js",\n}', 'attnscope.runnerPath'), '/tmp/nope-runner.js');
  assert.equal(settingInFile('{ "attnscope": { "runnerPath": "/tmp/n.js" } }', 'attnscope.runnerPath'), '/tmp/n.js');
  assert.equal(settingInFile('{ "folders": [], "settings": { "attnscope.nodePath": "/opt/node" } }', 'attnscope.nodePath', true), '/opt/node');
  assert.equal(settingInFile('{ "attnscope.nodePath": "/opt/node" }', 'attnscope.nodePath', true), undefined);
  assert.equal(settingInFile('', 'attnscope.runnerPath'), undefined);
  assert.equal(settingInFile('[1]', 'attnscope.runnerPath'), undefined);
  // A setting that is no machine setting (backend, window scope) is never checked here.
  assert.deepEqual(ignoredMachineSettings({ backend: 'auto' }, { backend: [{ where: ws, value: 'cpu' }] }, properties), []);
});

test("JSON profiles are checked by the language server alone: no schema is contributed to the editor's JSON service for them", () => {
  // s52 newcomer-ed 2: jsonValidation gave *.attn.json the profile schema, so VS Code's JSON service
  // reported every error beside the server's (two problems each, YAML one), with a wrong message for a
  // oneOf ("Value must be "exponential"." for dist: exponentail), and its hover repeated each key's
  // description. The server completes and hovers JSON profiles from the same schema
  // (test/lsp/completion.test.ts "JSON: quoted keys and values", test/lsp/diagnostics.test.ts).
  const contributed = (manifest.contributes.jsonValidation ?? []) as Array<{ fileMatch: string | string[] }>;
  const forProfiles = contributed.filter((c) => [c.fileMatch].flat().some((glob) => ['p.attn.json', 'examples/qwen3-30b-a3b.attn.json'].some((f) => minimatch(f, glob, { matchBase: true }))));
  assert.deepEqual(forProfiles, []);
});
