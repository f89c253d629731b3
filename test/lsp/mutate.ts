/**
 * Seeded mutations of configs and profiles for the fuzz test: truncation, deletion, insertion of
 * syntax and extreme numbers, duplication, line removal, values of the wrong type.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isProfilePath } from '../../core/config';

const NASTY = ['{', '}', '[', ']', ':', ',', '"', "'", '\n', ' ', '-', '#', '\t', '&a', '*a', '!!str', '---', '\\', 'null', 'true', '0', '-1', '1e400', '-0', '3.5', '1e-9', '9007199254740993', 'NaN', 'Infinity', '\u{1F600}', '\u0000', '"head_dim": 0,', 'page_size: 0\n', 'model: ./missing/config.json\n', 'dtype: fp8_e4m3\n', '"num_key_value_heads": 7,', 'seq_lens: [1e12]\n', 'model: {}\n', 'backend: cpu\n'];
const NUMBERS = ['0', '-1', '1', '3', '7', '1e308', '-1e308', '0.5', '4294967297', '1e21', '2.5e-324', '65536', '999999999999'];

export function mutate(rand: () => number, text: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const at = (): number => Math.floor(rand() * (text.length + 1));
  switch (Math.floor(rand() * 8)) {
    case 0:
      return text.slice(0, at());
    case 1: {
      const i = at();
      return text.slice(0, i) + text.slice(i + 1 + Math.floor(rand() * 40));
    }
    case 2: {
      const i = at();
      return text.slice(0, i) + pick(NASTY) + text.slice(i);
    }
    case 3: {
      const matches = [...text.matchAll(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi)];
      if (matches.length === 0) return text + pick(NASTY);
      const m = pick(matches);
      return text.slice(0, m.index) + pick(NUMBERS) + text.slice(m.index! + m[0].length);
    }
    case 4: {
      const i = at();
      const j = Math.min(text.length, i + Math.floor(rand() * 200));
      return text.slice(0, j) + text.slice(i, j) + text.slice(j);
    }
    case 5: {
      const lines = text.split('\n');
      const k = Math.floor(rand() * lines.length);
      lines.splice(k, 1 + Math.floor(rand() * 3));
      return lines.join('\n');
    }
    case 6: {
      const matches = [...text.matchAll(/"[a-z_]+"|\b[a-z_]+(?=:)/g)];
      if (matches.length === 0) return text;
      const m = pick(matches);
      const replacement = pick(['[]', '{}', 'null', '"x"', 'true', '-3', '[1, "a", null]']);
      return text.slice(0, m.index! + m[0].length) + ': ' + replacement + ',' + text.slice(m.index! + m[0].length);
    }
    default: {
      let t = text;
      for (let k = 0; k < 3; k++) {
        const i = Math.floor(rand() * (t.length + 1));
        t = t.slice(0, i) + pick(NASTY) + t.slice(i + Math.floor(rand() * 3));
      }
      return t;
    }
  }
}

export interface Seed {
  /** URI the mutated text is opened under (profiles resolve their model path from it). */
  uri: string;
  text: string;
}

export function seeds(fixtures: string): Seed[] {
  const out: Seed[] = [];
  for (const name of readdirSync(join(fixtures, 'configs')).sort()) {
    if (!name.endsWith('.config.json')) continue;
    const path = join(fixtures, 'configs', name);
    out.push({ uri: pathToFileURL(path).href, text: readFileSync(path, 'utf8') });
  }
  for (const name of readdirSync(fixtures).sort()) {
    if (!isProfilePath(name)) continue;
    const path = join(fixtures, name);
    out.push({ uri: pathToFileURL(path).href, text: readFileSync(path, 'utf8') });
  }
  return out;
}

