/**
 * The extension's settings: one typed reader over the `attnscope.*` keys that package.json
 * declares ("contributes.configuration"). Nothing else reads `workspace.getConfiguration`.
 * Defaults: extension/settingDefaults.ts, equal to package.json's.
 */
import * as vscode from 'vscode';
import { isBackend, type Backend } from '../core/config/types';
import { settingInFile, settingProblems, SETTING_DEFAULTS, type DeclaredSetting, type WrittenSetting } from './settingDefaults';

export interface Settings {
  /** Kernel backend override (`--backend`); 'auto' leaves it to the profile's device.backend. */
  backend: Backend;
  /** Where runs are saved, relative to the workspace folder (or absolute). */
  historyFolder: string;
  /** Few repetitions and small shapes (`--quick`): a first look in seconds. */
  quickMode: boolean;
  /** Runner to spawn instead of the bundled dist/runner.js ('' = bundled); machine scope. */
  runnerPath: string;
  /** Node executable for the runner ('' = the extension host's own Node when it is plain Node, else `node` on PATH); machine scope. */
  nodePath: string;
  /** Open the dashboard when a run starts. */
  openDashboardOnRun: boolean;
}

const SECTION = 'attnscope';

/** Reads every setting, for `scope` (a document or folder) when given; unset or empty ones get SETTING_DEFAULTS. */
export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  const c = vscode.workspace.getConfiguration(SECTION, scope);
  const d: Settings = SETTING_DEFAULTS;
  const backend = c.get<string>('backend', d.backend);
  return {
    backend: isBackend(backend) ? backend : 'auto',
    historyFolder: c.get<string>('historyFolder', d.historyFolder) || d.historyFolder,
    quickMode: bool(c.get<unknown>('quickMode'), d.quickMode),
    runnerPath: c.get<string>('runnerPath', d.runnerPath).trim(),
    nodePath: c.get<string>('nodePath', d.nodePath).trim(),
    openDashboardOnRun: bool(c.get<unknown>('openDashboardOnRun'), d.openDashboardOnRun),
  };
}

/** A boolean setting's value, or its default when the user set something else ("yes"): settingProblems says so. */
function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/**
 * What is wrong with the settings the user set (settingProblems over package.json's declarations),
 * window scope: `declared` is the manifest's contributes.configuration.properties.
 */
export function readSettingProblems(declared: Record<string, DeclaredSetting>): string[] {
  const c = vscode.workspace.getConfiguration(SECTION);
  const values = Object.fromEntries(Object.keys(declared).map((name) => {
    const key = name.replace(/^attnscope\./, '');
    const i = c.inspect(key);
    return [key, i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue];
  }));
  return settingProblems(values, declared);
}

/**
 * Every value of the machine-scoped settings (`declared` with `"scope": "machine"`; keys without
 * the `attnscope.` prefix) written in a place VS Code may not read it from, for
 * settingDefaults.ts ignoredMachineSettings: the scopes configuration.inspect() gives (VS Code
 * 1.100 drops a machine setting's workspace value, and in a remote window its User value, before
 * the extension host sees them: they then read unset there), so also the files themselves: the
 * workspace file's "settings", each workspace folder's .vscode/settings.json, and `userSettings`
 * (the User settings file beside the extension's global storage: code-server keeps it on the
 * host the extension runs on). A file that is absent or does not read is skipped.
 */
export async function readMachineSettingsWritten(declared: Record<string, DeclaredSetting>, userSettings: vscode.Uri | undefined): Promise<Record<string, WrittenSetting[]>> {
  const keys = Object.entries(declared).filter(([, d]) => d.scope === 'machine').map(([name]) => name.replace(/^attnscope\./, ''));
  const c = vscode.workspace.getConfiguration(SECTION);
  const workspaceFile = vscode.workspace.workspaceFile;
  // `workspaceFile`: a .code-workspace file, whose settings sit under "settings" (settingInFile).
  const files: Array<{ uri: vscode.Uri; where: string; workspaceFile?: boolean }> = [
    ...(userSettings ? [{ uri: userSettings, where: `the User settings (${userSettings.fsPath})` }] : []),
    ...(workspaceFile?.scheme === 'file' ? [{ uri: workspaceFile, where: `the workspace settings (${workspaceFile.fsPath})`, workspaceFile: true }] : []),
    ...(vscode.workspace.workspaceFolders ?? []).map((f) => {
      const uri = vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json');
      return { uri, where: `the ${(vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? 'folder' : 'workspace'} settings (${uri.fsPath})` };
    }),
  ];
  const read = await Promise.all(files.map(async ({ uri, where, workspaceFile = false }) => {
    try {
      return { where, text: new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)), workspaceFile };
    } catch {
      return { where, text: '', workspaceFile: false };
    }
  }));
  return Object.fromEntries(keys.map((key) => {
    const i = c.inspect(key);
    const fromFiles = read.map(({ where, text, workspaceFile }) => ({ where, value: settingInFile(text, `${SECTION}.${key}`, workspaceFile) }));
    // The files first: their places name the file, and a value is said once (the first place found).
    return [key, [
      ...fromFiles,
      { where: 'the User settings', value: i?.globalValue },
      { where: 'the workspace settings', value: i?.workspaceValue },
      { where: 'the folder settings', value: i?.workspaceFolderValue },
    ]];
  }));
}

/** True when `e` changed a setting of this extension. */
export function affectsSettings(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(SECTION);
}
