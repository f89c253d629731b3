/**
 * The domain, in one import: config reading (core/config), the memory estimate
 * (core/estimate) and number formatting (core/format). Pure TypeScript: no vscode, no native.
 * core/protocol stays a separate import: the webview takes only that.
 */
export * from './config/index';
export * from './estimate/index';
export * from './format';
