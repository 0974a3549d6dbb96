import { describe, expect, it } from 'vitest';
import { fixtureBytes, fixtureJson } from '../../../test/fixtures/sbom/fixtures.ts';
import { validateSbom } from './index.ts';

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
