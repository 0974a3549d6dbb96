/**
 * Every exported object against the official STIX 2.1 schema of its own type (the bundle schema
 * alone would let note and opinion through as custom objects), the envelope against bundle.json,
 * and what no schema can say: references resolve, times are ordered, the TLP marking is the
 * official one, and re-exports are byte-identical.
 */
import { describe, expect, it } from 'vitest';
import { OMITTED_BY_BUNDLE_SCHEMA, validateStix } from '../../../../test/support/stix-schemas.ts';
import { buildStixBundle } from './bundle.ts';
import { sampleExport } from './fixtures.ts';
import { TLP_LEVELS, TLP_MARKING_IDS, TLP2_EXTENSION_ID } from './tlp.ts';
import type { StixBundle, StixObject, TlpLevel } from './types.ts';

const MS_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SCO_TYPES = new Set(['artifact', 'file', 'software']);

/** Every `*_ref` and `*_refs` value anywhere in a value (nested external references included). */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key.endsWith('_ref') && typeof v === 'string') out.push(v);
      else if (key.endsWith('_refs') && Array.isArray(v)) out.push(...(v as string[]));
      else refsIn(v, out);
    }
  }
  return out;
}

function checkBundle(bundle: StixBundle, tlp: TlpLevel): void {
  const listed = bundle.objects.filter((o) => !OMITTED_BY_BUNDLE_SCHEMA.has(o.type));
  const envelope = validateStix('bundle', { ...bundle, objects: listed });
  expect(envelope.errors, 'bundle envelope').toEqual([]);
  const ids = new Set(bundle.objects.map((o) => o.id));
  expect(ids.size, 'ids are unique').toBe(bundle.objects.length);
  const identity = bundle.objects.find((o) => o.type === 'identity')!;

  for (const object of bundle.objects) {
    const verdict = validateStix(object.type, object);
    expect(verdict.errors, `${object.id} against ${object.type}.json`).toEqual([]);
    expect(verdict.ok).toBe(true);
    for (const ref of refsIn(object)) expect(ids.has(ref), `${object.id} -> ${ref}`).toBe(true);
    if (object.type === 'marking-definition') continue;
    expect(object.object_marking_refs).toEqual([TLP_MARKING_IDS[tlp]]);
    if (SCO_TYPES.has(object.type)) {
      expect(object.created_by_ref).toBeUndefined();
      continue;
    }
    expect(object.created_by_ref).toBe(identity.id);
    expect(object.created).toMatch(MS_TIME);
    expect(object.modified).toMatch(MS_TIME);
    expect(
      (object.modified as string) >= (object.created as string),
      `${object.id} modified >= created`,
    ).toBe(true);
  }
}

const ofType = (bundle: StixBundle, type: string) => bundle.objects.filter((o) => o.type === type);
const withLabel = (bundle: StixBundle, label: string) =>
  ofType(bundle, 'note').filter((o) => (o.labels as string[]).includes(label));

describe('buildStixBundle: schemas and integrity', () => {
  it.each([...TLP_LEVELS])('validates every object with %s', (tlp) => {
    const bundle = buildStixBundle(sampleExport(tlp));
    checkBundle(bundle, tlp);
    const markings = ofType(bundle, 'marking-definition');
    expect(markings).toHaveLength(1);
    expect(markings[0]).toMatchObject({
      id: TLP_MARKING_IDS[tlp],
      name: tlp,
      created: '2022-10-01T00:00:00.000Z',
      extensions: { [TLP2_EXTENSION_ID]: { extension_type: 'property-extension' } },
    });
  });

  it('marks TLP:AMBER when the campaign chose none, and without a campaign', () => {
    checkBundle(buildStixBundle(sampleExport()), 'TLP:AMBER');
    checkBundle(buildStixBundle(sampleExport(null)), 'TLP:AMBER');
    const alone = buildStixBundle({ ...sampleExport(), campaign: null });
    checkBundle(alone, 'TLP:AMBER');
    expect(ofType(alone, 'report')[0]!.name).toBe('Cairn research export');
  });

  it('uses the official TLP 2.0 ids', () => {
    expect(TLP_MARKING_IDS).toEqual({
      'TLP:CLEAR': 'marking-definition--94868c89-83c2-464b-929b-a1a8aa3c8487',
      'TLP:GREEN': 'marking-definition--bab4a63c-aed9-4cf5-a766-dfca5abac2bb',
      'TLP:AMBER': 'marking-definition--55d920b0-5e8b-4f79-9ee9-91f868d9b421',
      'TLP:AMBER+STRICT': 'marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003',
      'TLP:RED': 'marking-definition--e828b379-4e03-4974-9ac4-e53a884c97c1',
    });
  });

  it('validates a finding that cites nothing in the export and names nothing', () => {
    const input = sampleExport('TLP:RED');
    input.evidence = [];
    input.findings = [{ ...input.findings[2]!, evidenceIds: ['evd_01HGW2ZZZZZZZZZZZZZZZZZZZZ'] }];
    const bundle = buildStixBundle(input);
    checkBundle(bundle, 'TLP:RED');
    const note = withLabel(bundle, 'finding')[0]!;
    expect(note.object_refs).toEqual([ofType(bundle, 'report')[0]!.id]);
  });
});

describe('buildStixBundle: the mapping', () => {
  const bundle = buildStixBundle(sampleExport('TLP:GREEN'));
  const input = sampleExport('TLP:GREEN');
  const findingNote = (claimStart: string) =>
    withLabel(bundle, 'finding').find((n) => (n.content as string).startsWith(claimStart))!;

  it('makes one identity for the owner', () => {
    expect(ofType(bundle, 'identity')).toEqual([
      expect.objectContaining({ name: 'Nadia Okafor', identity_class: 'individual' }),
    ]);
    expect(bundle.objects[0]!.type).toBe('marking-definition');
    expect(bundle.objects[1]!.type).toBe('identity');
  });

  it('lists everything in one report', () => {
    const reports = ofType(bundle, 'report');
    expect(reports).toHaveLength(1);
    const others = bundle.objects.filter((o) => o.type !== 'report').map((o) => o.id);
    expect([...(reports[0]!.object_refs as string[])].sort()).toEqual([...others].sort());
    expect(reports[0]!.published).toBe(reports[0]!.modified);
  });

  it('writes each finding as a note with its claim, confidence and cited sources', () => {
    const overflow = findingNote('OpenSSL 3.0.0 through');
    expect(overflow.content).toBe(input.findings[0]!.claim);
    expect(overflow.confidence).toBe(85);
    expect(overflow.created).toBe('2023-11-01T11:45:00.123Z');
    const refs = overflow.external_references as Array<Record<string, unknown>>;
    expect(refs).toContainEqual(
      expect.objectContaining({
        external_id: input.evidence[0]!.evidenceId,
        url: 'https://www.openssl.org/news/secadv/20221101.txt',
        hashes: { 'SHA-256': '3fa9'.repeat(16) },
      }),
    );
    expect(findingNote('Disabling').confidence).toBeUndefined();
    expect(findingNote('The vendor bulletin').confidence).toBe(15);
    expect(findingNote('curl 7.86.0').confidence).toBe(15);
  });

  it('keeps a cited source missing from the export as an external reference', () => {
    const note = findingNote('The vendor bulletin');
    expect(note.external_references).toContainEqual({
      source_name: 'cairn',
      external_id: 'evd_01HGW2ZZZZZZZZZZZZZZZZZZZZ',
    });
    expect(note.modified).toBe(note.created); // updated_at before created_at
  });

  it('keeps unknowns and contradictions as labelled notes on the finding', () => {
    const unknowns = withLabel(bundle, 'unknown');
    const contradictions = withLabel(bundle, 'contradiction');
    expect(unknowns.map((n) => n.content).sort()).toEqual(input.findings.flatMap((f) => f.unknowns).sort());
    expect(contradictions.map((n) => n.content).sort()).toEqual(
      input.findings.flatMap((f) => f.contradictions).sort(),
    );
    const overflow = findingNote('OpenSSL 3.0.0 through');
    expect(unknowns.find((n) => (n.content as string).includes('name constraints'))!.object_refs).toEqual([
      overflow.id,
    ]);
  });

  it('writes each review as an opinion on the finding note', () => {
    const opinions = ofType(bundle, 'opinion');
    expect(opinions).toHaveLength(6);
    const byRationale = (start: string) => opinions.find((o) => (o.explanation as string).startsWith(start))!;
    expect(byRationale('Advisory text')).toMatchObject({ opinion: 'agree', authors: ['agent lyra-7'] });
    expect(byRationale('The admin guide')).toMatchObject({ opinion: 'disagree' });
    expect(byRationale('The SBOM does not')).toMatchObject({ opinion: 'neutral' });
    expect(byRationale('Advisory text').object_refs).toEqual([findingNote('OpenSSL 3.0.0 through').id]);
  });

  it('makes a vulnerability per CVE id with a cve external reference', () => {
    const vulns = ofType(bundle, 'vulnerability');
    expect(vulns.map((v) => v.name).sort()).toEqual(['CVE-2022-32221', 'CVE-2022-3602', 'CVE-2022-3786']);
    expect(vulns.find((v) => v.name === 'CVE-2022-3602')!.external_references).toEqual([
      {
        source_name: 'cve',
        external_id: 'CVE-2022-3602',
        url: 'https://www.cve.org/CVERecord?id=CVE-2022-3602',
      },
    ]);
  });

  it('makes software from SBOM components and affected versions, one object per package', () => {
    const names = ofType(bundle, 'software').map((s) => `${s.name}@${s.version ?? ''}`);
    expect(names.sort()).toEqual(['curl@7.86.0', 'openssl@3.0.5-4', 'openssl@3.0.6', 'zlib@']);
    // The SBOM names openssl 3.0.6 without a vendor, the finding with one: one object, with it.
    expect(ofType(bundle, 'software').find((s) => s.version === '3.0.6')!.vendor).toBe('OpenSSL Project');
    const sbom = ofType(bundle, 'observed-data').find((o) => (o.labels as string[]).includes('sbom-import'))!;
    expect(sbom.external_references).toContainEqual({
      source_name: 'purl',
      external_id: 'pkg:generic/openssl@3.0.6',
    });
    expect(sbom.labels).toEqual(['sbom-import', 'unverified']);
  });

  it('relates each vulnerability of a finding to its software', () => {
    const rels = ofType(bundle, 'relationship');
    const byId = new Map(bundle.objects.map((o) => [o.id, o] as const));
    const pairs = rels.map(
      (r) => `${byId.get(r.source_ref as string)!.name} -> ${byId.get(r.target_ref as string)!.version}`,
    );
    expect(pairs.sort()).toEqual([
      'CVE-2022-32221 -> 7.86.0',
      'CVE-2022-3602 -> 3.0.5-4',
      'CVE-2022-3602 -> 3.0.6',
      'CVE-2022-3786 -> 3.0.5-4',
      'CVE-2022-3786 -> 3.0.6',
    ]);
    expect(rels.every((r) => r.relationship_type === 'related-to')).toBe(true);
  });

  it('pins web reads as artifacts and imports as files, by SHA-256', () => {
    const artifacts = ofType(bundle, 'artifact');
    expect(artifacts.map((a) => a.url).sort()).toEqual([
      'https://nvd.nist.gov/vuln/detail/CVE-2022-3602',
      'https://www.openssl.org/news/secadv/20221101.txt',
    ]);
    const files = ofType(bundle, 'file');
    expect(files.map((f) => f.name).sort()).toEqual([
      'Vendor bulletin VB-2022-118 (PDF)',
      'gateway-2.4.1.cdx.json',
    ]);
    const bulletin = ofType(bundle, 'observed-data').find((o) =>
      (o.labels as string[]).includes('owner-import'),
    )!;
    // The malformed declared source URL is left out rather than guessed at.
    expect((bulletin.external_references as StixObject[])[0]!.url).toBeUndefined();
    expect(bulletin.first_observed).toBe('2023-11-01T09:03:40.120Z');
  });
});
