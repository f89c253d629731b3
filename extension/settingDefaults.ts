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
