/**
 * The extension's settings: one typed reader over the `attnscope.*` keys that package.json
 * declares ("contributes.configuration"). Nothing else reads `workspace.getConfiguration`.
 * Defaults: extension/settingDefaults.ts, equal to package.json's.
 */
import * as vscode from 'vscode';
import { isBackend, type Backend } from '../core/config/types';
import { settingProblems, SETTING_DEFAULTS, type DeclaredSetting } from './settingDefaults';

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

/** True when `e` changed a setting of this extension. */
export function affectsSettings(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(SECTION);
}
