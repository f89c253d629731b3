/**
 * Extension entry (bundled to dist/extension.js). Thin: builds the context, registers the
 * commands, and has the language server start with the first profile or config.json opened
 * (Ctx.startServerWhenServed; activation itself stays cheap: it also comes with any YAML or JSON
 * file); a failed start is shown, and commands then say why they cannot work.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { offerConfigRenames } from './configRenameOffer';
import { Ctx } from './ctx';
import { persistListings } from './listedFiles';

let ctx: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): void {
  ctx = new Ctx(context);
  // History's and the sweeps' lists, kept for the next window of this workspace; entries of this build only (its version, and its bundle's size and time).
  if (context.storageUri) {
    const bundle = statSync(__filename, { throwIfNoEntry: false });
    persistListings(join(context.storageUri.fsPath, 'listed-files.json'), `${ctx.version} ${bundle?.size ?? 0}:${bundle?.mtimeMs ?? 0}`);
  }
  context.subscriptions.push(...registerCommands(ctx), offerConfigRenames(context, ctx.log));
  ctx.startServerWhenServed();
}

/** Cancels a running benchmark and stops the language server. */
export async function deactivate(): Promise<void> {
  await ctx?.dispose();
  ctx = undefined;
}
