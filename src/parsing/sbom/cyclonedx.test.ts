import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureJson } from '../../../test/fixtures/sbom/fixtures.ts';
import { validateSbom } from './index.ts';

type Json = Record<string, unknown>;

describe('CycloneDX JSON', () => {
  it.each(['1.4', '1.5', '1.6'])(
    'accepts a valid %s document with its components in document order',
    (version) => {
      const result = validateSbom(fixtureBytes(`cyclonedx-${version}.json`));
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      expect(result.format).toBe('cyclonedx');
      expect(result.specVersion).toBe(version);
      expect(result.name).toBe('acme-web');
      // body-parser is nested inside express: it follows its parent.
      expect(result.components.map((c) => c.name)).toEqual(['lodash', 'express', 'body-parser', 'openssl']);
      const [lodash, express, bodyParser] = result.components;
      expect(lodash).toEqual({
        name: 'lodash',
        version: '4.17.21',
        purl: 'pkg:npm/lodash@4.17.21',
        licenses: ['MIT'],
        hashes: [
          { alg: 'sha256', value: expect.stringMatching(/^[0-9a-f]{64}$/) },
          { alg: 'sha1', value: expect.stringMatching(/^[0-9a-f]{40}$/) },
        ],
      });
      expect(express?.licenses).toEqual(['MIT OR Apache-2.0']);
      expect(express?.hashes).toEqual([]);
      expect(bodyParser?.licenses).toEqual(['Custom body-parser licence']);
      expect(bodyParser?.hashes.map((h) => h.alg)).toEqual(['sha512']);
    },
  );

  it('writes a header and one line per component', () => {
    const result = validateSbom(fixtureBytes('cyclonedx-1.5.json'), 'cyclonedx');
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const doc = fixtureJson('cyclonedx-1.5.json') as {
      components: Array<{ hashes?: Array<{ content: string }> }>;
    };
    const lines = result.text.split('\n');
    expect(lines).toEqual([
      'sbom: CycloneDX 1.5 document=acme-web components=4',
      `component: lodash 4.17.21 purl=pkg:npm/lodash@4.17.21 licenses=MIT sha256=${doc.components[0]?.hashes?.[0]?.content} sha1=${doc.components[0]?.hashes?.[1]?.content}`,
      'component: express 4.19.2 purl=pkg:npm/express@4.19.2 licenses=MIT OR Apache-2.0',
      expect.stringMatching(
        /^component: body-parser 1\.20\.2 purl=\S+ licenses=Custom body-parser licence sha512=[0-9a-f]{128}$/,
      ),
      'component: openssl 3.0.13 purl=pkg:generic/openssl@3.0.13 licenses=Apache-2.0',
    ]);
  });

  it('refuses a component without a name, pointing at the component and the schema rule', () => {
    const result = validateSbom(fixtureBytes('cyclonedx-1.5-missing-name.json'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result).toMatchObject({ format: 'cyclonedx', specVersion: '1.5' });
    expect(result.errors).toContainEqual({
      path: '/components/1',
      message: expect.stringMatching(
        /^required: .*'name'.*\(schema bom-1\.5\.SNAPSHOT\.schema\.json#\/definitions\/component\/required\)$/,
      ),
    });
  });

  it('refuses a component type outside the enum, at the type itself', () => {
    const result = validateSbom(fixtureBytes('cyclonedx-1.6-bad-type.json'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toContainEqual({
      path: '/components/0/type',
      message: expect.stringMatching(
        /^enum: .*library.*\(schema bom-1\.6\.SNAPSHOT\.schema\.json#\/definitions\/component\/properties\/type\/enum\)$/,
      ),
    });
  });

  it('uses the official schema: an unknown top-level property, a bad serial number and a bad hash are refused', () => {
    const base = fixtureJson('cyclonedx-1.6.json');
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...base, unexpected: true }, '', 'additionalProperties'],
      [{ ...base, serialNumber: 'not-a-urn' }, '/serialNumber', 'pattern'],
      [{ ...base, metadata: { timestamp: 'yesterday' } }, '/metadata/timestamp', 'format'],
    ];
    for (const [doc, path, keyword] of cases) {
      const result = validateSbom(new TextEncoder().encode(JSON.stringify(doc)));
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.errors[0]).toMatchObject({ path, message: expect.stringMatching(`^${keyword}: `) });
    }
  });

  it('refuses 1.3 and 1.7 by naming the supported versions', () => {
    const old = validateSbom(fixtureBytes('cyclonedx-1.3.json'));
    expect(old).toEqual({
      ok: false,
      format: 'cyclonedx',
      specVersion: '1.3',
      errors: [
        {
          path: '/specVersion',
          message: 'version: CycloneDX "1.3" is not supported; supported: 1.4, 1.5, 1.6',
        },
      ],
    });
    const next = validateSbom(
      new TextEncoder().encode(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.7' })),
    );
    expect(next.ok).toBe(false);
    if (!next.ok) expect(next.errors[0]?.message).toContain('supported: 1.4, 1.5, 1.6');
  });
});

describe('CycloneDX uniqueItems, checked in one pass', () => {
  const require = createRequire(import.meta.url);
  const dir = path.join(
    path.dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')),
    'res/schema',
  );
  const read = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as object;
  // The unmodified schema in a stock ajv: what the swapped keyword must agree with.
  const stock = new Ajv({ strict: false, validateFormats: false });
  stock.addSchema(read('spdx.SNAPSHOT.schema.json'), 'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json');
  stock.addSchema(
    read('jsf-0.82.SNAPSHOT.schema.json'),
    'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json',
  );
  const official = stock.compile(read('bom-1.6.SNAPSHOT.schema.json'));

  const base = () =>
    fixtureJson('cyclonedx-1.6.json') as { components: Array<Record<string, unknown>> } & Json;
  const reordered = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).reverse());
  const cases: Array<[string, (d: ReturnType<typeof base>) => void, string | null]> = [
    [
      'a component repeated, keys in another order',
      (d) => d.components.push(reordered(d.components[0]!)),
      '/components',
    ],
    [
      'a dependency named twice',
      (d) => {
        const dependsOn = (d.dependencies as Array<{ dependsOn: string[] }>)[0]!.dependsOn;
        dependsOn.push(dependsOn[0]!);
      },
      '/dependencies/0/dependsOn',
    ],
    [
      'two components differing in one nested value',
      (d) => {
        const copy = structuredClone(d.components[0]!);
        (copy.hashes as Array<{ content: string }>)[0]!.content = 'b'.repeat(64);
        d.components.push(copy);
      },
      null,
    ],
  ];
  it.each(cases)('%s: judged as the official schema does', (_label, change, duplicateAt) => {
    const doc = base();
    change(doc);
    const theirs = official(doc) ? [] : (official.errors ?? []);
    expect(theirs.map((e) => [e.instancePath, e.keyword])).toEqual(
      duplicateAt ? [[duplicateAt, 'uniqueItems']] : [],
    );
    const result = validateSbom(new TextEncoder().encode(JSON.stringify(doc)));
    const ours = result.ok ? [] : result.errors;
    // Same place, same words as ajv's own uniqueItems (which names the indexes).
    expect(ours.map((e) => [e.path, e.message.split(' (schema')[0]])).toEqual(
      theirs.map((e) => [e.instancePath, `uniqueItems: ${e.message}`]),
    );
  });

  it('validates 20,000 distinct components in seconds, not the minutes of a pairwise check', () => {
    const components = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'library',
      name: `c${i}`,
      purl: `pkg:npm/c${i}@1`,
    }));
    const started = performance.now();
    const result = validateSbom(new TextEncoder().encode(JSON.stringify({ ...base(), components })));
    expect(result.ok).toBe(true);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
