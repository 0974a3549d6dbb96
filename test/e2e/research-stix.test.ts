import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TLP_MARKING_IDS } from '../../src/domains/research/index.ts';
import { fixtureBytes } from '../fixtures/sbom/fixtures.ts';
import { campaignWith, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { OMITTED_BY_BUNDLE_SCHEMA, validateStix } from '../support/stix-schemas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 16 items 4-5: research_export_stix and the owner's findings and STIX routes, on data made
 * through the real paths (imports, findings, reviews), checked against the OASIS schemas.
 */

let server: TestServer;
let lead: Member;
let author: Member;
let reviewer: Member;
let campaignId: string;
let leadToken: string;
let advisoryId: string;
let sbomId: string;
let findingId: string;

async function ownerPost(path: string, body: unknown, token = leadToken) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  server = await startTestServer();
  lead = await newMember(server);
  author = await newMember(server);
  reviewer = await newMember(server);
  campaignId = await campaignWith(lead, [author, reviewer]);
  leadToken = (await server.app.services.identity.addOwnerToken(lead.ownerEmail, 'stix', 1)).token;
  const advisory = await ownerPost('/v1/research/imports', {
    text: 'CVE-2026-12345: libmoor 2.0 to 2.4 accepts crafted headers. Fixed in 2.5.',
    source_url: 'https://vendor.example/advisories/cve-2026-12345',
    campaign_id: campaignId,
  });
  advisoryId = (await advisory.json()).evidence_id;
  const sbom = await ownerPost('/v1/research/imports', {
    data_base64: Buffer.from(fixtureBytes('cyclonedx-1.6.json')).toString('base64'),
    campaign_id: campaignId,
  });
  sbomId = (await sbom.json()).evidence_id;
  const finding = await ok(author, 'finding_create', {
    campaign_id: campaignId,
    claim: 'CVE-2026-12345 affects libmoor 2.0-2.4 (pkg:npm/lodash@4.17.21 ships it).',
    evidence_ids: [advisoryId, sbomId],
    affected_versions: ['libmoor 2.0-2.4'],
    unknowns: ['Whether 1.x is affected.'],
    contradictions: ['A forum post says 2.4 is fixed.'],
  });
  findingId = finding.finding_id;
  await ok(reviewer, 'finding_review', {
    campaign_id: campaignId,
    finding_id: findingId,
    verdict: 'SUPPORTED',
    rationale: 'The advisory says "libmoor 2.0 to 2.4 accepts crafted headers".',
    evidence_ids: [advisoryId],
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

interface StixObject {
  type: string;
  id: string;
  [k: string]: unknown;
}

/** What the schemas cannot say: every reference resolves inside the bundle. */
function refsOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, found);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.endsWith('_ref') && typeof v === 'string') found.push(v);
      else if (k.endsWith('_refs') && Array.isArray(v)) found.push(...(v as string[]));
      else refsOf(v, found);
    }
  }
  return found;
}

function checkBundle(bundle: { type: string; objects: StixObject[] }) {
  expect(bundle.type).toBe('bundle');
  for (const object of bundle.objects) {
    const verdict = validateStix(object.type, object);
    expect(verdict.errors, `${object.type} ${object.id}`).toEqual([]);
  }
  const envelope = {
    ...bundle,
    objects: bundle.objects.filter((o) => !OMITTED_BY_BUNDLE_SCHEMA.has(o.type)),
  };
  expect(validateStix('bundle', envelope).errors).toEqual([]);
  const ids = new Set(bundle.objects.map((o) => o.id));
  for (const ref of refsOf(bundle.objects)) expect(ids.has(ref), ref).toBe(true);
}

describe('research_export_stix', () => {
  it('exports findings, reviews, CVEs, SBOM software and sources as one schema-valid bundle under TLP:AMBER', async () => {
    const out = await ok(
      reviewer,
      'research_export_stix',
      { campaign_id: campaignId, evidence_ids: [findingId, advisoryId, sbomId] },
      false,
    );
    expect(out.tlp).toBe('TLP:AMBER');
    checkBundle(out.bundle);
    const types = out.bundle.objects.map((o: StixObject) => o.type);
    for (const t of [
      'identity',
      'report',
      'note',
      'opinion',
      'vulnerability',
      'software',
      'marking-definition',
    ]) {
      expect(types).toContain(t);
    }
    expect(out.bundle.objects.find((o: StixObject) => o.type === 'opinion').opinion).toBe('agree');
    expect(out.bundle.objects.some((o: StixObject) => o.id === TLP_MARKING_IDS['TLP:AMBER'])).toBe(true);
    const notes = out.bundle.objects
      .filter((o: StixObject) => o.type === 'note')
      .map((o: StixObject) => o.content);
    expect(notes).toContain('Whether 1.x is affected.');
    expect(notes).toContain('A forum post says 2.4 is fixed.');
    const cve = out.bundle.objects.find((o: StixObject) => o.type === 'vulnerability');
    expect(cve.name).toBe('CVE-2026-12345');
    const again = await ok(
      author,
      'research_export_stix',
      { campaign_id: campaignId, evidence_ids: [sbomId, advisoryId, findingId] },
      false,
    );
    expect(JSON.stringify(again.bundle)).toBe(JSON.stringify(out.bundle));
  });

  it('refuses more than 20 sources, and sources the caller cannot see in this campaign', async () => {
    const many = Array.from({ length: 21 }, (_, i) => `evd_${String(i).padStart(26, '0')}`);
    const err = await refused(
      reviewer,
      'research_export_stix',
      { campaign_id: campaignId, evidence_ids: many },
      false,
    );
    expect(err.code).toBe('VALIDATION_FAILED');
    const other = await campaignWith(reviewer, []);
    const unseen = await refused(
      reviewer,
      'research_export_stix',
      { campaign_id: other, evidence_ids: [advisoryId] },
      false,
    );
    expect(unseen.code).toBe('NOT_FOUND');
    expect(unseen.details).toMatchObject({ evidence_ids: [advisoryId] });
  });
});

describe('the owner API', () => {
  it('lists the findings with their reviews, and reads one', async () => {
    const headers = { authorization: `Bearer ${leadToken}` };
    const list = await fetch(`${server.url}/v1/research/campaigns/${campaignId}/findings`, { headers });
    expect(list.status).toBe(200);
    const body = await list.json();
    expect(body.findings[0]).toMatchObject({ finding_id: findingId, status: 'SUPPORTED' });
    expect(body.findings[0].reviews).toHaveLength(1);
    const one = await fetch(`${server.url}/v1/research/findings/${findingId}`, { headers });
    expect((await one.json()).claim).toContain('CVE-2026-12345');
    const otherToken = (await server.app.services.identity.addOwnerToken(author.ownerEmail, 'x', 1)).token;
    const theirs = await fetch(`${server.url}/v1/research/findings/${findingId}`, {
      headers: { authorization: `Bearer ${otherToken}` },
    });
    expect(theirs.status).toBe(404);
  });

  it('downloads the same bytes for the same sources, and refuses another owner', async () => {
    const first = await ownerPost(`/v1/research/campaigns/${campaignId}/stix`, {
      evidence_ids: [findingId, advisoryId],
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('application/stix+json');
    expect(first.headers.get('content-disposition')).toContain('attachment');
    const text = await first.text();
    checkBundle(JSON.parse(text));
    const second = await ownerPost(`/v1/research/campaigns/${campaignId}/stix`, {
      evidence_ids: [advisoryId, findingId],
    });
    expect(await second.text()).toBe(text);
    const otherToken = (await server.app.services.identity.addOwnerToken(reviewer.ownerEmail, 'x', 1)).token;
    const theirs = await ownerPost(
      `/v1/research/campaigns/${campaignId}/stix`,
      { evidence_ids: [advisoryId] },
      otherToken,
    );
    expect(theirs.status).toBe(404);
  });
});
