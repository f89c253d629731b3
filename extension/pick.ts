/**
 * What every AttnScope quick pick shares (vscode.window.showQuickPick options).
 *
 * `ignoreFocusOut`: the pick stays open when focus leaves it; Escape still closes it. VS Code
 * closes a quick pick on focus loss, and a pick shown by a command run from the palette while the
 * dashboard (a webview) is the active editor lost its focus to that webview: the palette's close
 * returns focus to the active editor, which a webview takes in steps (its iframe at once, then,
 * 50 ms later if nothing else took focus, a `focus` message its iframe acts on when it gets to it:
 * VS Code's webviewElement.ts, the workaround of microsoft/vscode#75209). A pick that opened
 * between the message and the iframe's handling of it closed before its rows drew, with nothing
 * picked and nothing said (the e2e "compares two saved runs" step, about 1 CI run in 15).
 */
export const PICK_OPTIONS = { ignoreFocusOut: true } as const;
