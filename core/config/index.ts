/**
 * core/config: read HuggingFace config.json and *.attn.yaml / *.attn.json profiles into
 * ModelSpec / Profile values with source ranges. Nothing here throws on bad input: every
 * problem comes back as a value with a code and a range.
 */
import { parseJsonTree, type ParsedTree } from './tree';

export * from './types';
export { offsetToLineColumn, formatProblem } from './positions';
export { readModelConfig, readModelConfigTree, modelSpecFromTree } from './model';
export { readProfile, readProfileTree, parseProfileText, readProfileOrConfig, readProfileOrConfigTree, parseProfileOrConfig, type ProfileHost } from './profile';
export { profileFromModelConfig, PROFILE_DEFAULTS } from './profileDefaults';
export { closestMatch } from './suggest';
export { parseJsonTree, parseYamlTree, nodeAtPath, getProperty, toPlain, propertyAt, propertyWithKeyAt, propertyWithValueAt, type ValueNode, type PropertyNode, type ParsedTree, type FoundProperty } from './tree';

/** True for *.attn.yaml, *.attn.yml and *.attn.json. */
export function isProfilePath(path: string): boolean {
  return /\.attn\.(ya?ml|json)$/i.test(path);
}

/**
 * True when `path` is named config.json or *.config.json and its text holds a top-level
 * "model_type" or "architectures" key (DESIGN.md "Files the user writes"). Cheap: a syntax
 * error still counts when the key is there, so the server can report it. `parsed`: the text's
 * parseJsonTree result when the caller has it already.
 */
export function isModelConfigFile(path: string, text: string, parsed?: ParsedTree): boolean {
  const base = path.split(/[\\/]/).pop() ?? path;
  if (!/^(.+\.)?config\.json$/i.test(base)) return false;
  const root = (parsed ?? parseJsonTree(text)).root;
  if (root?.type === 'object') {
    return (root.properties ?? []).some((p) => p.key === 'model_type' || p.key === 'architectures');
  }
  return /"(model_type|architectures)"\s*:/.test(text);
}
