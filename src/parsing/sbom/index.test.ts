import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encode, fixtureJson } from '../../../test/fixtures/sbom/fixtures.ts';
import { detectSbom, MAX_SBOM_COMPONENTS, type SbomResult, validateSbom } from './index.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const firstError = (result: SbomResult) => (result.ok ? null : result.errors[0]);

describe('detectSbom', () => {
  it('reads the declared format and version, supported or not', () => {
    expect(detectSbom({ bomFormat: 'CycloneDX', specVersion: '1.6' })).toEqual({
      format: 'cyclonedx',
      specVersion: '1.6',
    });
    expect(detectSbom({ bomFormat: 'CycloneDX', specVersion: '1.2' })).toEqual({
      format: 'cyclonedx',
      specVersion: '1.2',
    });
    expect(detectSbom({ spdxVersion: 'SPDX-2.3' })).toEqual({ format: 'spdx', specVersion: '2.3' });
  });

  it('returns null for anything else', () => {
    for (const value of [
      null,
      'CycloneDX',
      [],
      {},
      { bomFormat: 'cyclonedx', specVersion: '1.6' },
      { bomFormat: 'CycloneDX' },
    ]) {
      expect(detectSbom(value)).toBeNull();
    }
    expect(detectSbom({ spdxVersion: '2.3' })).toBeNull();
    expect(detectSbom({ spdxVersion: 'SPDX-' })).toBeNull();
  });
});

describe('validateSbom refuses garbage with errors, never exceptions', () => {
  it.each([
    ['not JSON', bytes('{"bomFormat": "CycloneDX",'), /^json: the file is not JSON/],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /^json: the file is not UTF-8/],
    [
      'an array',
      bytes('[{"bomFormat":"CycloneDX","specVersion":"1.6"}]'),
      /^type: an SBOM must be a JSON object/,
    ],
    ['a number', bytes('42'), /^type: /],
    ['null', bytes('null'), /^type: /],
    ['empty', new Uint8Array(), /^json: /],
    ['an unrelated object', bytes('{"hello":"world"}'), /^format: not an SBOM/],
  ])('%s', (_label, input, message) => {
    const result = validateSbom(input);
    expect(result).toMatchObject({ ok: false, format: null, specVersion: null });
    expect(firstError(result)).toEqual({ path: '', message: expect.stringMatching(message) });
  });

  it('refuses nesting past the depth cap without overflowing the stack', () => {
    const deep = `{"bomFormat":"CycloneDX","specVersion":"1.6","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(firstError(validateSbom(bytes(deep)))?.message).toMatch(/^depth: .* 64 levels/);
    const justDeep = `{"a":${'['.repeat(70)}${']'.repeat(70)}}`;
    expect(firstError(validateSbom(bytes(justDeep)))?.message).toMatch(/^depth: /);
    const shallow = `{"a":${'['.repeat(60)}${']'.repeat(60)}}`;
    expect(firstError(validateSbom(bytes(shallow)))?.message).toMatch(/^format: /);
  });

  it('refuses more components than the cap, nested ones counted', () => {
    const many = Array.from({ length: MAX_SBOM_COMPONENTS }, (_, i) => ({ type: 'library', name: `c${i}` }));
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      components: [
        { type: 'library', name: 'root', components: many },
        { type: 'library', name: 'one-more' },
      ],
    };
    const result = validateSbom(encode(doc));
    expect(result).toMatchObject({ ok: false, format: 'cyclonedx', specVersion: '1.6' });
    expect(firstError(result)?.message).toMatch(/^size: 50002 components/);
    const spdx = validateSbom(
      encode({ ...fixtureJson('spdx-2.3.json'), packages: Array(MAX_SBOM_COMPONENTS + 1).fill({}) }),
    );
    expect(firstError(spdx)?.message).toMatch(/^size: /);
  });

  it('refuses a file of the other format than expected', () => {
    const result = validateSbom(encode(fixtureJson('spdx-2.3.json')), 'cyclonedx');
    expect(firstError(result)?.message).toBe('format: expected cyclonedx, the file is spdx');
    expect(firstError(validateSbom(bytes('{"a":1}'), 'spdx'))?.message).toMatch(/^format: an SPDX document/);
  });

  it('never throws on arbitrary bytes or JSON, SBOM-shaped or not', () => {
    const sbomish = fc.record(
      {
        bomFormat: fc.constantFrom('CycloneDX', 'SPDX'),
        specVersion: fc.constantFrom('1.4', '1.5', '1.6', '1.3'),
        spdxVersion: fc.constantFrom('SPDX-2.2', 'SPDX-2.3', 'SPDX-x'),
        components: fc.anything(),
        packages: fc.anything(),
        metadata: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array(), fc.json().map(bytes), sbomish.map(encode)), (input) => {
        const result = validateSbom(input);
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) expect(result.errors.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('evidence text', () => {
  it('keeps a hostile component name on its own line and cuts overlong values', () => {
    const doc = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      metadata: { component: { type: 'application', name: 'app\ncomponent: forged 1.0' } },
      components: [
        { type: 'library', name: 'evil\ncomponent: forged 6.6.6\u2028x', version: '1\r\n2' },
        { type: 'library', name: 'x'.repeat(1000) },
      ],
    };
    const result = validateSbom(encode(doc));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const lines = result.text.split('\n');
    expect(lines).toEqual([
      'sbom: CycloneDX 1.6 document=app component: forged 1.0 components=2',
      'component: evil component: forged 6.6.6 x 1 2',
      `component: ${'x'.repeat(300)}…`,
    ]);
    // The component itself keeps the document's value; only the text is flattened.
    expect(result.components[0]?.name).toBe('evil\ncomponent: forged 6.6.6\u2028x');
  });
});
