import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TLP_MARKING_IDS } from '../../src/domains/research/index.ts';
import { campaignWith, type Member, newMember, ok } from '../support/campaigns.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 16 item 7: /v1/public/research-reports lists what owners chose to publish, none by default. */

let server: TestServer;
let lead: Member;
let author: Member;
let campaignId: string;
let token: string;
let sources: string[];

const owner = (path: string, body: unknown, bearer = token) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const listed = async () => {
  const res = await fetch(`${server.url}/v1/public/research-reports?limit=100`);
  expect(res.status).toBe(200);
  return (await res.json()).reports as Array<{ report_id: string; campaign_id: string; bundle_url: string }>;
};

beforeAll(async () => {
  server = await startTestServer();
  lead = await newMember(server);
  author = await newMember(server);
  campaignId = await campaignWith(lead, [author]);
  token = (await server.app.services.identity.addOwnerToken(lead.ownerEmail, 'reports', 1)).token;
  const imported = await owner('/v1/research/imports', {
    text: 'Public advisory: libmoor 2.0 to 2.4 accepts crafted headers.',
    campaign_id: campaignId,
  });
  const advisory = (await imported.json()).evidence_id;
  const finding = await ok(author, 'finding_create', {
    campaign_id: campaignId,
    claim: 'libmoor 2.0-2.4 accepts crafted headers.',
    evidence_ids: [advisory],
  });
  sources = [finding.finding_id, advisory];
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('research reports', () => {
  it('lists nothing of a campaign by default, and refuses to publish unless the campaign is TLP:CLEAR', async () => {
    expect((await listed()).filter((r) => r.campaign_id === campaignId)).toEqual([]);
    const refused = await owner(`/v1/research/campaigns/${campaignId}/reports`, {
      title: 'libmoor header parsing',
      summary: 'What we found.',
      evidence_ids: sources,
    });
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: 'REPORT_NOT_PUBLIC', details: { tlp: 'TLP:AMBER' } });
    expect(body.error.next_action).toContain('TLP:CLEAR');
  });

  it('publishes a frozen STIX bundle under TLP:CLEAR that anyone can read, until it is withdrawn', async () => {
    expect((await owner(`/v1/research/campaigns/${campaignId}/settings`, { tlp: 'TLP:CLEAR' })).status).toBe(
      200,
    );
    const res = await owner(`/v1/research/campaigns/${campaignId}/reports`, {
      title: 'libmoor header parsing',
      summary: 'What we found.',
      evidence_ids: sources,
    });
    expect(res.status).toBe(201);
    const report = await res.json();
    expect(report).toMatchObject({
      campaign_id: campaignId,
      title: 'libmoor header parsing',
      withdrawn_at: null,
    });
    expect((await listed()).map((r) => r.report_id)).toContain(report.report_id);
    const bundle = await fetch(`${server.url}${report.bundle_url}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('application/stix+json');
    const objects = (await bundle.json()).objects as Array<{ id: string; type: string }>;
    expect(objects.some((o) => o.id === TLP_MARKING_IDS['TLP:CLEAR'])).toBe(true);
    expect(objects.some((o) => o.type === 'note')).toBe(true);

    const otherToken = (await server.app.services.identity.addOwnerToken(author.ownerEmail, 'x', 1)).token;
    expect((await owner(`/v1/research/reports/${report.report_id}/withdraw`, {}, otherToken)).status).toBe(
      404,
    );
    const withdrawn = await owner(`/v1/research/reports/${report.report_id}/withdraw`, {});
    expect((await withdrawn.json()).withdrawn_at).not.toBeNull();
    expect((await listed()).map((r) => r.report_id)).not.toContain(report.report_id);
    expect((await fetch(`${server.url}${report.bundle_url}`)).status).toBe(404);
  });

  it("refuses another owner's campaign and sources outside the campaign", async () => {
    const otherToken = (await server.app.services.identity.addOwnerToken(author.ownerEmail, 'y', 1)).token;
    const theirs = await owner(
      `/v1/research/campaigns/${campaignId}/reports`,
      { title: 't', summary: 's', evidence_ids: sources },
      otherToken,
    );
    expect(theirs.status).toBe(404);
    const unknown = await owner(`/v1/research/campaigns/${campaignId}/reports`, {
      title: 't',
      summary: 's',
      evidence_ids: ['evd_00000000000000000000000000'],
    });
    expect(unknown.status).toBe(404);
  });
});
