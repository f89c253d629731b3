/**
 * Extension entry (bundled to dist/extension.js). Thin: builds the context, registers the
 * commands, and has the language server start with the first profile or config.json opened
 * (Ctx.startServerWhenServed; activation itself stays cheap: it also comes with any YAML or JSON
 * file); a failed start is shown, and commands then say why they cannot work.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { offerConfigRenames } from './configRenameOffer';
import { Ctx } from './ctx';

let ctx: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): void {
  ctx = new Ctx(context);
  context.subscriptions.push(...registerCommands(ctx), offerConfigRenames(context, ctx.log));
  ctx.startServerWhenServed();
}

/** Cancels a running benchmark and stops the language server. */
export async function deactivate(): Promise<void> {
  await ctx?.dispose();
  ctx = undefined;
}
