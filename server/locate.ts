/** Finding keys and values in the analysed document's text. */
import type { PropertyNode, SourceRange, ValueNode } from '../core/config';
import type { Analysis } from './analysis';

/**
 * Value range of a model key (a JSON path as core records it, e.g. "num_key_value_heads") in
 * this document: in a config.json, or in a profile whose model is written inline. Undefined
 * when the model lives in another file or the key is absent.
 */
export function modelKeyRange(a: Analysis, path: string): SourceRange | undefined {
  const model = a.model;
  if (model === null) return undefined;
  if (a.kind === 'profile' && a.profile?.modelPath !== null) return undefined;
  return model.ranges[path] ?? model.ranges[`model.${path}`];
}

/** Value range of a profile key ("kv_cache.page_size") in this profile. */
export function profileKeyRange(a: Analysis, path: string): SourceRange | undefined {
  return a.kind === 'profile' ? a.profile?.ranges[path] : undefined;
}

export interface FoundProperty {
  /** Keys (and array indices) from the root to this property, the property's key last. */
  path: Array<string | number>;
  property: PropertyNode;
  /** The object that holds the property. */
  parent: ValueNode;
}

function contains(r: SourceRange, offset: number): boolean {
  return offset >= r.offset && offset <= r.offset + r.length;
}

/** The innermost property whose key or value contains `offset`. */
export function propertyAt(root: ValueNode | null, offset: number): FoundProperty | null {
  let found: FoundProperty | null = null;
  const walk = (node: ValueNode, path: Array<string | number>): void => {
    if (node.type === 'object') {
      for (const p of node.properties ?? []) {
        if (contains(p.keyRange, offset) || contains(p.value.range, offset)) {
          found = { path: [...path, p.key], property: p, parent: node };
          walk(p.value, [...path, p.key]);
          return;
        }
      }
    } else if (node.type === 'array') {
      (node.items ?? []).forEach((item, i) => {
        if (contains(item.range, offset)) walk(item, [...path, i]);
      });
    }
  };
  if (root !== null) walk(root, []);
  return found;
}

/** The property whose key starts at `offset` (the anchor of unknown-key problems). */
export function propertyWithKeyAt(root: ValueNode | null, offset: number): FoundProperty | null {
  const found = propertyAt(root, offset);
  return found !== null && found.property.keyRange.offset === offset ? found : null;
}

/** The outermost property whose value starts at `offset` (an inline model, not its first key). */
export function propertyWithValueAt(root: ValueNode | null, offset: number): FoundProperty | null {
  const walk = (node: ValueNode, path: Array<string | number>): FoundProperty | null => {
    if (node.type === 'object') {
      for (const p of node.properties ?? []) {
        if (p.value.range.offset === offset) return { path: [...path, p.key], property: p, parent: node };
        if (contains(p.value.range, offset)) return walk(p.value, [...path, p.key]);
      }
    } else if (node.type === 'array') {
      const items = node.items ?? [];
      for (let i = 0; i < items.length; i++) if (contains(items[i]!.range, offset)) return walk(items[i]!, [...path, i]);
    }
    return null;
  };
  return root === null ? null : walk(root, []);
}
