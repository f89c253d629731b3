/**
 * schemas/run.schema.json from the types: the JSON Schema (draft-07) of a run file — what
 * `attnscope bench --json`, `simulate --json` and each sweep point write — generated from
 * core/protocol/run.ts RunResult and core/protocol/sweep.ts SweepPointRun with TypeScript's own
 * type checker, so it cannot drift from them: every interface a `definitions` entry, each
 * property's doc comment (units, formula source) its description (a map's keys, which have none of
 * their own, the map's `@entry` tag with `{key}` for each), optional properties not
 * required, and no property the types do not name (additionalProperties false), so a field
 * renamed on one side only fails test/cli/run-schema.test.ts.
 *
 * `npm run schema:run` writes the file; the test regenerates it and compares.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

type Schema = Record<string, unknown>;

const root = join(__dirname, '..');

/** The schema file's path in the repository. */
export const RUN_SCHEMA_FILE = join(root, 'schemas', 'run.schema.json');

/** The types a run file is: a run, or a sweep point (a run with a `sweep` block). */
const ROOTS: Array<{ file: string; name: string }> = [
  { file: 'core/protocol/run.ts', name: 'RunResult' },
  { file: 'core/protocol/sweep.ts', name: 'SweepPointRun' },
];

/**
 * The run file's JSON Schema from the types (see the file's doc).
 * @throws Error naming the type and property for a type with no JSON form (a function, a bigint, a symbol).
 */
export function runSchema(): Schema {
  const program = ts.createProgram(ROOTS.map((r) => join(root, r.file)), { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const definitions: Record<string, Schema> = {};
  /** Named types already given a definition (or being given one: recursion), by their definition name. */
  const named = new Map<ts.Type, string>();

  const doc = (symbol: ts.Symbol): string => ts.displayPartsToString(symbol.getDocumentationComment(checker)).replace(/\s+/g, ' ').trim();

  /** The definition name of an interface or type alias declared in the project (not lib, not node_modules), or null. */
  const nameOf = (type: ts.Type): string | null => {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (!symbol || type.aliasTypeArguments?.length) return null;
    const decl = symbol.declarations?.[0];
    if (!decl || decl.getSourceFile().isDeclarationFile || decl.getSourceFile().fileName.includes('node_modules')) return null;
    if (!ts.isInterfaceDeclaration(decl) && !ts.isTypeAliasDeclaration(decl)) return null;
    return symbol.getName();
  };

  /**
   * A map's `@entry` tag: the description of each of its keys' values, `{key}` standing for the key
   * (a Partial<Record<keyof T, string>> has no doc comment of its own per key), or undefined.
   */
  const entryTag = (symbol: ts.Symbol): string | undefined => {
    const tag = symbol.getJsDocTags(checker).find((t) => t.name === 'entry');
    return tag ? ts.displayPartsToString(tag.text).replace(/\s+/g, ' ').trim() : undefined;
  };

  const objectSchema = (type: ts.Type, where: string, entry?: string): Schema => {
    if (type.getCallSignatures().length > 0) throw new Error(`${where}: a function has no JSON form`);
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const prop of checker.getPropertiesOfType(type)) {
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      const propType = decl ? checker.getTypeOfSymbolAtLocation(prop, decl) : checker.getTypeOfSymbol(prop);
      const s = schemaOf(propType, `${where}.${prop.getName()}`, entryTag(prop));
      const description = doc(prop) || (entry?.replaceAll('{key}', prop.getName()) ?? '');
      properties[prop.getName()] = description ? { description, ...s } : s;
      if (!(prop.flags & ts.SymbolFlags.Optional)) required.push(prop.getName());
    }
    const index = checker.getIndexInfosOfType(type).find((i) => i.keyType.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral));
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: index ? schemaOf(index.type, `${where}[key]`) : false,
    };
  };

  const schemaOf = (type: ts.Type, where: string, entry?: string): Schema => {
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (f & ts.TypeFlags.Null) return { type: 'null' };
    if (f & ts.TypeFlags.StringLiteral) return { const: (type as ts.StringLiteralType).value };
    if (f & ts.TypeFlags.NumberLiteral) return { const: (type as ts.NumberLiteralType).value };
    if (f & ts.TypeFlags.BooleanLiteral) return { const: type === checker.getTrueType() };
    if (f & ts.TypeFlags.String || f & ts.TypeFlags.TemplateLiteral) return { type: 'string' };
    if (f & ts.TypeFlags.Number) return { type: 'number' };
    if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (f & (ts.TypeFlags.BigInt | ts.TypeFlags.ESSymbol | ts.TypeFlags.Void | ts.TypeFlags.Never)) throw new Error(`${where}: ${checker.typeToString(type)} has no JSON form`);
    const name = nameOf(type);
    if (name !== null && !(type.isUnion() && type.types.every((t) => t.flags & (ts.TypeFlags.Literal | ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.BooleanLiteral)))) {
      const known = named.get(type);
      if (known === undefined) {
        if (definitions[name] !== undefined) throw new Error(`${where}: two types named ${name}: rename one`);
        named.set(type, name);
        definitions[name] = {};
        const body = schemaUnnamed(type, name);
        const description = doc(type.aliasSymbol ?? type.getSymbol()!);
        definitions[name] = description ? { description, ...body } : body;
      }
      return { $ref: `#/definitions/${named.get(type)}` };
    }
    return schemaUnnamed(type, where, entry);
  };

  const schemaUnnamed = (type: ts.Type, where: string, entry?: string): Schema => {
    if (type.isUnion()) {
      const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
      // true | false (TypeScript's boolean as a union, with null or literals beside it).
      const bools = members.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
      const rest = bools.length === 2 ? members.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral)) : members;
      const schemas = [...(bools.length === 2 ? [{ type: 'boolean' }] : []), ...rest.map((t) => schemaOf(t, where, entry))];
      const consts = schemas.filter((s) => 'const' in s && Object.keys(s).length === 1);
      if (consts.length === schemas.length) return { enum: consts.map((s) => s.const) };
      if (schemas.length === 1) return schemas[0]!;
      return { anyOf: schemas };
    }
    if (checker.isTupleType(type)) {
      const items = checker.getTypeArguments(type as ts.TypeReference).map((t, i) => schemaOf(t, `${where}[${i}]`));
      return { type: 'array', items, minItems: items.length, maxItems: items.length, additionalItems: false };
    }
    if (checker.isArrayType(type)) return { type: 'array', items: schemaOf(checker.getTypeArguments(type as ts.TypeReference)[0]!, `${where}[]`) };
    if (type.flags & ts.TypeFlags.Object || type.isIntersection()) return objectSchema(type, where, entry);
    throw new Error(`${where}: ${checker.typeToString(type)} is not read (flags ${type.flags})`);
  };

  const roots = ROOTS.map(({ file, name }) => {
    const source = program.getSourceFile(join(root, file));
    const symbol = source && checker.getSymbolAtLocation(source)?.exports?.get(ts.escapeLeadingUnderscores(name));
    if (!symbol) throw new Error(`${file} exports no ${name}`);
    return schemaOf(checker.getDeclaredTypeOfSymbol(symbol), name);
  });
  const sorted = Object.fromEntries(Object.keys(definitions).sort().map((k) => [k, definitions[k]!]));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://attnscope.dev/schemas/run.schema.json',
    title: 'AttnScope run file',
    description:
      'A run file: `attnscope bench --json`, `attnscope simulate --json`, a sweep point (the run and its `sweep` block). Generated from core/protocol/run.ts RunResult and core/protocol/sweep.ts SweepPointRun by scripts/run-schema.ts (npm run schema:run); do not edit by hand.',
    // A run with a `sweep` block is a sweep point; any other, a run: one schema each, so an error names the fields of the one it is.
    if: { type: 'object', properties: { sweep: {} }, required: ['sweep'] },
    then: roots[1],
    else: roots[0],
    definitions: sorted,
  };
}

if (require.main === module) {
  writeFileSync(RUN_SCHEMA_FILE, `${JSON.stringify(runSchema(), null, 2)}\n`);
  process.stderr.write(`wrote ${RUN_SCHEMA_FILE}\n`);
}
