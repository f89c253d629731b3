/**
 * The dashboard page. Strict CSP: nothing by default; scripts only with this page's nonce;
 * styles, fonts and images only from the extension's own files (`cspSource`); no remote
 * loads, no inline script. Run data never goes into the HTML: it arrives as messages.
 * No `vscode` import, so the webview test loads exactly this page.
 */
import { randomBytes } from 'node:crypto';

export interface DashboardPageUris {
  /** webview.cspSource: the origin the webview serves extension files from. */
  cspSource: string;
  /** dist/webview/main.js as a webview URI. */
  script: string;
  /** dist/webview/main.css as a webview URI. */
  style: string;
}

/** A fresh nonce: 128 random bits, base64. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The Content-Security-Policy the page carries. */
export function dashboardCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    // Lit (vscode-elements) adopts constructed style sheets; chart.js sets canvas sizes through CSSOM.
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

/** The full HTML of the dashboard. */
export function dashboardHtml(uris: DashboardPageUris, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${dashboardCsp(uris.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uris.style}">
<title>AttnScope</title>
</head>
<body>
<div id="app" aria-live="polite"></div>
<script nonce="${nonce}" src="${uris.script}"></script>
</body>
</html>
`;
}
