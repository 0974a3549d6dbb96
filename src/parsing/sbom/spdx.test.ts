import { describe, expect, it } from 'vitest';
import { encode, fixtureBytes, fixtureJson } from '../../../test/fixtures/sbom/fixtures.ts';
import { validateSbom } from './index.ts';

describe('SPDX JSON', () => {
  it.each(['2.2', '2.3'])('accepts a valid %s document with its packages as components', (version) => {
    const result = validateSbom(fixtureBytes(`spdx-${version}.json`));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result).toMatchObject({ format: 'spdx', specVersion: version, name: 'acme-web-2.3.0' });
    expect(result.components.map((c) => [c.name, c.version, c.purl])).toEqual([
      ['acme-web', '2.3.0', null],
      ['lodash', '4.17.21', 'pkg:npm/lodash@4.17.21'],
      ['openssl', '3.0.13', 'pkg:generic/openssl@3.0.13'],
    ]);
    const [app, lodash, openssl] = result.components;
    expect(app?.licenses).toEqual(['LicenseRef-acme']);
    expect(lodash?.licenses).toEqual(['MIT']);
    // licenseConcluded NOASSERTION carries nothing; the declared licence stays.
    expect(openssl?.licenses).toEqual(['Apache-2.0']);
    expect(lodash?.hashes.map((h) => h.alg)).toEqual(['sha256', 'sha1']);
    expect(openssl?.hashes.map((h) => h.alg)).toEqual(version === '2.3' ? ['blake3', 'sha3-256'] : []);
  });

  it('writes a header and one line per package, in document order', () => {
    const result = validateSbom(fixtureBytes('spdx-2.2.json'), 'spdx');
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const doc = fixtureJson('spdx-2.2.json') as {
      packages: Array<{ checksums?: Array<{ checksumValue: string }> }>;
    };
    const [sha256, sha1] = (doc.packages[1]?.checksums ?? []).map((c) => c.checksumValue);
    expect(result.text.split('\n')).toEqual([
      'sbom: SPDX 2.2 document=acme-web-2.3.0 components=3',
      'component: acme-web 2.3.0 licenses=LicenseRef-acme',
      `component: lodash 4.17.21 purl=pkg:npm/lodash@4.17.21 licenses=MIT sha256=${sha256} sha1=${sha1}`,
      'component: openssl 3.0.13 purl=pkg:generic/openssl@3.0.13 licenses=Apache-2.0',
    ]);
  });

  it('refuses an invalid document with JSON pointers and keywords', () => {
    const doc = fixtureJson('spdx-2.3.json') as {
      packages: Array<Record<string, unknown>>;
      creationInfo: object;
    };
    delete doc.packages[1]?.downloadLocation;
    doc.packages[2]!.primaryPackagePurpose = 'PLUGIN';
    doc.creationInfo = { created: '2024-05-02T10:15:00Z', creators: [] };
    const result = validateSbom(encode(doc));
    expect(result).toMatchObject({ ok: false, format: 'spdx', specVersion: '2.3' });
    if (result.ok) return;
    expect(result.errors.map((e) => [e.path, e.message.split(':')[0]])).toEqual([
      ['/creationInfo/creators', 'minItems'],
      ['/packages/1', 'required'],
      ['/packages/2/primaryPackagePurpose', 'enum'],
    ]);
    expect(result.errors[1]?.message).toBe('required: missing property "downloadLocation"');
    expect(result.errors[2]?.message).toMatch(/^enum: "PLUGIN" is not one of OTHER, INSTALL, .*LIBRARY/);
  });

  it('reports at most 20 errors', () => {
    const doc = fixtureJson('spdx-2.2.json');
    doc.packages = Array.from({ length: 30 }, (_, i) => ({ SPDXID: `SPDXRef-${i}` }));
    const result = validateSbom(encode(doc));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toHaveLength(20);
  });

  it('refuses SPDX 2.1 and 3.0 by naming the supported versions', () => {
    expect(validateSbom(fixtureBytes('spdx-2.1.json'))).toEqual({
      ok: false,
      format: 'spdx',
      specVersion: '2.1',
      errors: [
        { path: '/spdxVersion', message: 'version: SPDX "2.1" is not supported; supported: 2.2, 2.3' },
      ],
    });
    const three = validateSbom(encode({ spdxVersion: 'SPDX-3.0' }));
    expect(three).toMatchObject({ ok: false, format: 'spdx', specVersion: '3.0' });
  });
});
