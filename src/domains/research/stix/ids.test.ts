import { describe, expect, it } from 'vitest';
import { STIX_NAMESPACE, stixId, textKey, uuidV5 } from './ids.ts';

describe('uuidV5', () => {
  it('matches the RFC example and Python uuid.uuid5', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
    // Values from Python's uuid.uuid5 under the STIX 2.1 namespace.
    expect(uuidV5(STIX_NAMESPACE, '{"value":"http://example.com"}')).toBe(
      '889594fa-6f29-50be-9099-85ab9ab93fbd',
    );
    expect(uuidV5(STIX_NAMESPACE, 'note:é')).toBe('90eb360f-f1b9-5d55-96d9-c20a7f5931cf');
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidV5('nope', 'x')).toThrow();
  });
});

describe('stixId', () => {
  it('names the type and hashes type:key', () => {
    expect(stixId('note', 'evd_01HGW3A1B2C3D4E5F6G7H8J9K0')).toBe(
      'note--b29927d4-b0da-5e59-ba34-f1751692095b',
    );
  });

  it('gives two types of one key two UUIDs', () => {
    expect(stixId('note', 'k').split('--')[1]).not.toBe(stixId('opinion', 'k').split('--')[1]);
  });

  it('is stable and has the version 5 and variant bits', () => {
    const id = stixId('vulnerability', 'CVE-2022-3602');
    expect(id).toBe(stixId('vulnerability', 'CVE-2022-3602'));
    expect(id).toMatch(
      /^vulnerability--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('textKey', () => {
  it('depends on the text only', () => {
    expect(textKey('a')).toBe(textKey('a'));
    expect(textKey('a')).not.toBe(textKey('b'));
  });
});
