/** Re-exports: byte-identical for the same records in any order; the 20-source cap; refusals. */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../kernel/errors.ts';
import { buildStixBundle, MAX_STIX_SOURCES, serializeBundle } from './bundle.ts';
import { sampleExport } from './fixtures.ts';
import type { StixExportInput } from './types.ts';

function reversed(input: StixExportInput): StixExportInput {
  return {
    ...input,
    sources: [...input.sources].reverse(),
    evidence: [...input.evidence]
      .reverse()
      .map((e) => ({ ...e, components: e.components?.slice().reverse() })),
    findings: [...input.findings].reverse().map((f) => ({
      ...f,
      evidenceIds: [...f.evidenceIds].reverse(),
      affectedVersions: [...f.affectedVersions].reverse(),
      unknowns: [...f.unknowns].reverse(),
      contradictions: [...f.contradictions].reverse(),
      reviews: [...f.reviews].reverse(),
    })),
  };
}

function refusal(input: StixExportInput): DomainError {
  try {
    buildStixBundle(input);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('determinism', () => {
  it('serialises the same records to the same bytes', () => {
    const a = serializeBundle(buildStixBundle(sampleExport('TLP:AMBER+STRICT')));
    const b = serializeBundle(buildStixBundle(sampleExport('TLP:AMBER+STRICT')));
    expect(a).toBe(b);
    expect(JSON.parse(a).type).toBe('bundle');
  });

  it('does not depend on the order of the inputs', () => {
    const a = serializeBundle(buildStixBundle(sampleExport()));
    const b = serializeBundle(buildStixBundle(reversed(sampleExport())));
    expect(b).toBe(a);
  });

  it('changes the bundle id, not the report id, when a record changes', () => {
    const before = buildStixBundle(sampleExport());
    const changed = sampleExport();
    changed.findings[2]!.reviews.push({
      reviewId: 'rev_01HGW4C0000000000000000001',
      verdict: 'SUPPORTED',
      rationale: 'The advisory lists no such mitigation.',
      createdAt: '2023-11-02T09:00:00.000Z',
    });
    const after = buildStixBundle(changed);
    expect(after.id).not.toBe(before.id);
    const reportId = (b: typeof before) => b.objects.find((o) => o.type === 'report')!.id;
    expect(reportId(after)).toBe(reportId(before));
  });

  it('takes its times from the records, never the clock', () => {
    const serialized = serializeBundle(buildStixBundle(sampleExport()));
    const years = new Set(serialized.match(/"\d{4}-\d{2}-\d{2}T/g));
    expect([...years].every((y) => y.startsWith('"2022-') || y.startsWith('"2023-'))).toBe(true);
  });
});

describe('the source cap', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `evd_${String(i).padStart(26, '0')}`);

  it('accepts 20 sources and counts a repeated id once', () => {
    expect(MAX_STIX_SOURCES).toBe(20);
    expect(() => buildStixBundle({ ...sampleExport(), sources: ids(20) })).not.toThrow();
    expect(() => buildStixBundle({ ...sampleExport(), sources: [...ids(20), ...ids(20)] })).not.toThrow();
  });

  it('refuses 21 sources as VALIDATION_FAILED', () => {
    const err = refusal({ ...sampleExport(), sources: ids(21) });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details).toEqual({
      detail: [{ loc: ['body', 'evidence_ids'], msg: expect.stringContaining('up to 20'), type: 'too_big' }],
    });
  });

  it('refuses an export of nothing', () => {
    expect(refusal({ ...sampleExport(), sources: [] }).code).toBe('VALIDATION_FAILED');
  });
});

describe('refusals of malformed records', () => {
  it('refuses a time without a zone and a malformed hash', () => {
    const zoneless = sampleExport();
    zoneless.findings[0]!.createdAt = '2023-11-01T11:45:00';
    expect(refusal(zoneless).code).toBe('VALIDATION_FAILED');
    const badHash = sampleExport();
    badHash.evidence[0]!.sha256 = 'sha256:1234';
    expect(refusal(badHash).code).toBe('VALIDATION_FAILED');
  });

  it('refuses a TLP level outside TLP 2.0', () => {
    const input = sampleExport();
    input.campaign!.tlp = 'TLP:WHITE' as never;
    expect(refusal(input).code).toBe('VALIDATION_FAILED');
  });
});
