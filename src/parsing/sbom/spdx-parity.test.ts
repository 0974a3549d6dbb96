/**
 * Our hand-written SPDX rules against ajv running the official schemas (the in-repo copies), over
 * the valid fixtures and variants generated from them. Both must accept or refuse each document,
 * and refuse it at the same places (ajv's instancePath) for the same keywords.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { fixtureJson, spdxSchema } from '../../../test/fixtures/sbom/fixtures.ts';
import { validateSpdx } from './spdx.ts';

type Json = Record<string, unknown>;
type Variant = { label: string; doc: Json };

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const official: Record<string, ValidateFunction> = {
  '2.2': ajv.compile(spdxSchema('2.2')),
  '2.3': ajv.compile(spdxSchema('2.3')),
};

const clone = (doc: Json): Json => structuredClone(doc);

/** Sets (or, with `remove`, deletes) the value at `path` in a copy of `doc`. */
function edit(doc: Json, path: readonly string[], value: unknown, remove = false): Json {
  const copy = clone(doc);
  let node = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path[path.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

/** A value of another JSON type than `value`, and (for numbers) a non-integer. */
function wrongTypes(value: unknown): unknown[] {
  if (typeof value === 'string') return [42, null];
  if (typeof value === 'boolean') return ['true'];
  if (typeof value === 'number') return ['7', 1.5];
  if (Array.isArray(value)) return [{}, 'a'];
  return [[], 'x'];
}

/**
 * Schema-blind mutations of every node: delete each property, add an unknown one to each object,
 * give each value another type, put an unknown word in each string, empty each array. Some
 * variants stay valid (an optional field deleted); the test only needs both validators to agree.
 */
function variants(base: Json): Variant[] {
  const out: Variant[] = [];
  const walk = (node: unknown, path: string[]) => {
    const at = `/${path.join('/')}`;
    if (path.length > 0) {
      for (const wrong of wrongTypes(node))
        out.push({ label: `${at} = ${JSON.stringify(wrong)}`, doc: edit(base, path, wrong) });
      if (typeof node === 'string')
        out.push({ label: `${at} = "NOT_A_VALUE"`, doc: edit(base, path, 'NOT_A_VALUE') });
      if (Array.isArray(node)) out.push({ label: `${at} = []`, doc: edit(base, path, []) });
    }
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        walk(child, [...path, String(i)]);
      });
    } else if (node !== null && typeof node === 'object') {
      out.push({ label: `${at} + unknownField`, doc: edit(base, [...path, 'unknownField'], 'x') });
      for (const [key, child] of Object.entries(node)) {
        out.push({ label: `${at} - ${key}`, doc: edit(base, [...path, key], undefined, true) });
        walk(child, [...path, key]);
      }
    }
  };
  walk(base, []);
  return out;
}

/** `path keyword` pairs: what a refusal says, in a form both validators produce. */
function ajvFindings(version: string, doc: Json): string[] {
  const validate = official[version]!;
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort();
}
function ourFindings(version: string, doc: Json): string[] {
  return validateSpdx(doc, version)
    .map((e) => `${e.path} ${e.message.split(':')[0]}`)
    .sort();
}

describe.each(['2.2', '2.3'])('SPDX %s: our rules and the official schema agree', (version) => {
  const base = fixtureJson(`spdx-${version}.json`);

  it('both accept the valid fixture', () => {
    expect(ajvFindings(version, base)).toEqual([]);
    expect(ourFindings(version, base)).toEqual([]);
  });

  it('both judge every generated variant alike, refusing at the same paths for the same keywords', () => {
    const all = variants(base);
    const mismatches: string[] = [];
    const keywords = new Set<string>();
    let refused = 0;
    for (const { label, doc } of all) {
      const theirs = ajvFindings(version, doc);
      const ours = ourFindings(version, doc);
      if (theirs.length > 0) refused++;
      for (const finding of theirs) keywords.add(finding.split(' ').pop()!);
      if (JSON.stringify([...new Set(theirs)]) !== JSON.stringify([...new Set(ours)])) {
        mismatches.push(`${label}: ajv ${JSON.stringify(theirs)} ours ${JSON.stringify(ours)}`);
      }
    }
    expect(mismatches).toEqual([]);
    // The set must be broad and mostly invalid, touching every keyword the schemas use.
    expect(refused).toBeGreaterThan(300);
    expect(all.length - refused).toBeGreaterThan(20);
    expect([...keywords].sort()).toEqual(['additionalProperties', 'enum', 'minItems', 'required', 'type']);
  });
});

/** Values that differ between the versions, checked by name on top of the generated variants. */
const cases: Array<[string, string, (doc: Json) => Json, string | null]> = [
  [
    '2.2',
    'a BLAKE3 checksum (2.3 only)',
    (d) => edit(d, ['packages', '1', 'checksums', '0', 'algorithm'], 'BLAKE3'),
    '/packages/1/checksums/0/algorithm enum',
  ],
  [
    '2.2',
    'primaryPackagePurpose (2.3 only)',
    (d) => edit(d, ['packages', '0', 'primaryPackagePurpose'], 'LIBRARY'),
    '/packages/0 additionalProperties',
  ],
  [
    '2.2',
    'builtDate (2.3 only)',
    (d) => edit(d, ['packages', '0', 'builtDate'], '2024-01-01T00:00:00Z'),
    '/packages/0 additionalProperties',
  ],
  [
    '2.2',
    'REQUIREMENT_DESCRIPTION_FOR (2.3 only)',
    (d) => edit(d, ['relationships', '0', 'relationshipType'], 'REQUIREMENT_DESCRIPTION_FOR'),
    '/relationships/0/relationshipType enum',
  ],
  [
    '2.2',
    'PACKAGE_MANAGER spelling',
    (d) => edit(d, ['packages', '1', 'externalRefs', '0', 'referenceCategory'], 'PACKAGE_MANAGER'),
    null,
  ],
  [
    '2.3',
    'PACKAGE_MANAGER spelling (2.2 only)',
    (d) => edit(d, ['packages', '1', 'externalRefs', '0', 'referenceCategory'], 'PACKAGE_MANAGER'),
    '/packages/1/externalRefs/0/referenceCategory enum',
  ],
  [
    '2.3',
    'PERSISTENT_ID spelling (2.2 only)',
    (d) => edit(d, ['packages', '1', 'externalRefs', '0', 'referenceCategory'], 'PERSISTENT_ID'),
    '/packages/1/externalRefs/0/referenceCategory enum',
  ],
  [
    '2.2',
    'a package without copyrightText',
    (d) => edit(d, ['packages', '1', 'copyrightText'], undefined, true),
    '/packages/1 required',
  ],
  [
    '2.3',
    'a package without copyrightText (optional in 2.3)',
    (d) => edit(d, ['packages', '1', 'copyrightText'], undefined, true),
    null,
  ],
  [
    '2.2',
    'a file with no licenseInfoInFiles entry',
    (d) => edit(d, ['files', '0', 'licenseInfoInFiles'], []),
    '/files/0/licenseInfoInFiles minItems',
  ],
  [
    '2.3',
    'a file with no licenseInfoInFiles entry',
    (d) => edit(d, ['files', '0', 'licenseInfoInFiles'], []),
    null,
  ],
  [
    '2.3',
    'a fractional snippet offset',
    (d) => edit(d, ['snippets', '0', 'ranges', '0', 'startPointer', 'offset'], 10.5),
    '/snippets/0/ranges/0/startPointer/offset type',
  ],
  [
    '2.3',
    'no documentNamespace (the JSON schemas do not require it)',
    (d) => edit(d, ['documentNamespace'], undefined, true),
    null,
  ],
];

describe('SPDX: version differences', () => {
  it.each(cases)('%s: %s', (version, _label, change, expected) => {
    const doc = change(fixtureJson(`spdx-${version}.json`));
    const want = expected === null ? [] : [expected];
    expect(ajvFindings(version, doc)).toEqual(want);
    expect(ourFindings(version, doc)).toEqual(want);
  });
});
