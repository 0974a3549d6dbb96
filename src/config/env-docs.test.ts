import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../domains/catalog.ts';
import { envSchema } from './env-schema.ts';

/**
 * Issue 39 item 7: docs/configuration.md is true of the code. Every environment variable the
 * server reads (its own schema, the areas' settings fragments, and any direct process.env read in
 * src/) is documented there, and
 * every variable documented there is one the code reads.
 */

const docs = readFileSync(path.resolve('docs/configuration.md'), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Names read directly from process.env in the sources under `dir`. */
function directReads(dir: string): string[] {
  const names = new Set<string>();
  for (const file of sources(path.resolve(dir))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g))
      names.add(m[1] as string);
  }
  return [...names];
}

/** The server's own variables and every area's settings fragment. */
const schemaNames = [...Object.keys(envSchema.shape), ...SETTINGS.flatMap((f) => Object.keys(f.env))];
const read = [...new Set([...schemaNames, ...directReads('src')])].sort();
/** What the test support reads too (CAIRN_OAUTH_CHECKS_OUT, which CI sets, may be documented). */
const readByTests = directReads('test/support');

describe('docs/configuration.md', () => {
  it('documents every environment variable the code reads', () => {
    const missing = read.filter((name) => !docs.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it('documents no variable the code does not read', () => {
    // The variables the tables document: the first column of a row.
    const documented = [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1] as string);
    expect(documented.length).toBeGreaterThan(30);
    const stale = documented.filter((name) => !read.includes(name) && !readByTests.includes(name));
    expect(stale).toEqual([]);
  });
});
