/**
 * One analysis per document version: what kind of file it is, the ModelSpec / Profile core reads
 * from it, the Estimate, every Problem, and which other files were read. Features (diagnostics,
 * hints, hover, lenses, completion, quick fixes, resolveProfile) all work from this one value.
 * analyze() never throws: a failure inside core becomes an 'internal-error' problem.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  isModelConfigFile,
  isProfilePath,
  parseJsonTree,
  parseYamlTree,
  profileFromModelConfig,
  readModelConfig,
  readProfile,
  type ModelSpec,
  type Problem,
  type Profile,
  type ValueNode,
} from '../core/config';
import { estimate, type Estimate } from '../core/estimate';
import { documentName, uriToPath } from './paths';
import { describeError } from './safe';

/** Reads files other than the document (a profile's config.json): unsaved editor text first, else disk. */
export interface FileHost {
  readFile(absPath: string): string | null;
}

export type DocumentKind = 'config' | 'profile' | 'other';

export type Syntax = 'json' | 'yaml';

export interface Analysis {
  uri: string;
  version: number;
  document: TextDocument;
  kind: DocumentKind;
  syntax: Syntax;
  /** Absolute path for file: URIs, else null. */
  path: string | null;
  /** The document's positioned value tree (null when nothing parsed). */
  tree: ValueNode | null;
  model: ModelSpec | null;
  profile: Profile | null;
  estimate: Estimate | null;
  /** Every problem core found (those of a referenced config carry `file`), then the server's own. */
  problems: Problem[];
  /** Absolute paths read while analysing (the profile's config.json). */
  reads: string[];
  /** Text of each file read, by absolute path (positions of their problems). */
  readTexts: Map<string, string>;
}

function syntaxOf(name: string, languageId: string): Syntax {
  return /\.ya?ml$/i.test(name) || languageId === 'yaml' ? 'yaml' : 'json';
}

function kindOf(name: string, text: string): DocumentKind {
  if (isProfilePath(name)) return 'profile';
  if (isModelConfigFile(name, text)) return 'config';
  return 'other';
}

/** Analyses `document`; `host` reads the files it refers to. */
export function analyze(document: TextDocument, host: FileHost): Analysis {
  const text = document.getText();
  const name = documentName(document.uri);
  const path = uriToPath(document.uri);
  const readTexts = new Map<string, string>();
  const base: Analysis = {
    uri: document.uri,
    version: document.version,
    document,
    kind: 'other',
    syntax: syntaxOf(name, document.languageId),
    path,
    tree: null,
    model: null,
    profile: null,
    estimate: null,
    problems: [],
    reads: [],
    readTexts,
  };
  try {
    base.kind = kindOf(name, text);
    if (base.kind === 'other') return base;
    base.tree = (base.syntax === 'yaml' ? parseYamlTree(text) : parseJsonTree(text)).root;
    const recording = {
      readFile: (absPath: string): string | null => {
        base.reads.push(absPath);
        const content = host.readFile(absPath);
        if (content !== null) readTexts.set(absPath, content);
        return content;
      },
    };
    if (base.kind === 'config') {
      const read = readModelConfig(text);
      base.problems.push(...read.problems);
      base.model = read.value;
      if (read.value !== null) base.profile = profileFromModelConfig(read.value, path);
    } else {
      const read = readProfile(text, path ?? name, recording);
      base.problems.push(...read.problems);
      base.profile = read.value;
      base.model = read.value?.model ?? null;
    }
    if (base.profile !== null) base.estimate = estimate(base.profile);
  } catch (err) {
    base.problems.push({
      severity: 'error',
      code: 'internal-error',
      message: `AttnScope could not analyse this file (please report it): ${describeError(err).split('\n')[0]}`,
      range: { offset: 0, length: 0 },
    });
  }
  return base;
}
