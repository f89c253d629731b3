/**
 * Extension entry (bundled to dist/extension.js). Thin: builds the context, registers the
 * commands, starts the language server; a failed start is shown, and commands then say why
 * they cannot work.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { offerConfigRenames } from './configRenameOffer';
import { Ctx } from './ctx';

let ctx: Ctx | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  ctx = new Ctx(context);
  context.subscriptions.push(...registerCommands(ctx), offerConfigRenames(context, ctx.log));
  try {
    await ctx.startServer();
  } catch (err) {
    await ctx.showError(`AttnScope: the language server did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Cancels a running benchmark and stops the language server. */
export async function deactivate(): Promise<void> {
  await ctx?.dispose();
  ctx = undefined;
}
