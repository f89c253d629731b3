/** Conversions between document URIs (what LSP speaks) and file paths (what core reads). */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

/** Absolute file path of a file: URI; null for other schemes (untitled:, vscode-notebook-cell:) or malformed ones. */
export function uriToPath(uri: string): string | null {
  if (!uri.startsWith('file:')) return null;
  try {
    return resolve(fileURLToPath(uri));
  } catch {
    return null;
  }
}

/** file: URI of an absolute path. */
export function pathToUri(path: string): string {
  return pathToFileURL(path).href;
}

/**
 * The name used to classify a document: its file path, or for a non-file URI its last segment
 * (so that an unsaved "untitled:llama.attn.yaml" still counts as a profile).
 */
export function documentName(uri: string): string {
  const path = uriToPath(uri);
  if (path !== null) return path;
  const noQuery = uri.split(/[?#]/, 1)[0] ?? uri;
  const slash = Math.max(noQuery.lastIndexOf('/'), noQuery.lastIndexOf(':'));
  const last = noQuery.slice(slash + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
