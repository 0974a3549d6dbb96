import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignEvents } from '../../src/domains/campaigns/tables.ts';
import { TLP_MARKING_IDS } from '../../src/domains/research/index.ts';
import { campaignWith, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { csrfOf, errorOf, Visitor } from '../support/console-visitor.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 16 item 4 (console): the findings page of a campaign, its research settings (console form
 * and POST /v1/research/campaigns/{id}/settings) and the STIX download as a form post.
 */

let server: TestServer;
let lead: Member; // owner A: the campaign's owner of record, signed in to the console
let author: Member; // owner B
let sibling: Member; // owner B too
let reviewer: Member; // owner C
let campaignId: string;
let sourceId: string;
let leadToken: string;
let findingId: string;
let console_: Visitor;

const ADVISORY =
  'Advisory CAIRN-9: the moorland parser accepts crafted headers in versions 2.0 to 2.4 of libmoor. Fixed in 2.5.';
const CLAIM = '<script>alert("owned")</script> libmoor 2.0-2.4 mis-parses crafted headers & more.';

async function ownerCall(method: 'GET' | 'POST', path: string, body?: unknown, token = leadToken) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function importInto(campaign: string, text: string, extra: Record<string, unknown> = {}) {
  const res = await ownerCall('POST', '/v1/research/imports', { text, campaign_id: campaign, ...extra });
  expect(res.status).toBe(201);
  return res.body.evidence_id as string;
}

async function signedIn(email: string): Promise<Visitor> {
  const v = new Visitor(server.url);
  expect((await v.signIn(email)).status).toBe(303);
  return v;
}

const findingsPath = (id = campaignId) => `/console/campaigns/${id}/findings`;

beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
  lead = await newMember(server);
  author = await newMember(server);
  sibling = await newMember(server, author.ownerEmail);
  reviewer = await newMember(server);
  campaignId = await campaignWith(lead, [author, sibling, reviewer]);
  leadToken = (await server.app.services.identity.addOwnerToken(lead.ownerEmail, 'console', 1)).token;
  sourceId = await importInto(campaignId, ADVISORY, { source_date: '2020-01-01' });
  const f = await ok(author, 'finding_create', {
    campaign_id: campaignId,
    claim: CLAIM,
    evidence_ids: [sourceId],
    affected_versions: ['libmoor 2.0-2.4 <b>bold</b>'],
    unknowns: ['Whether 1.x is affected.'],
    contradictions: ['The 2.3 changelog claims a header fix.'],
    source_max_age_days: 365,
  });
  findingId = f.finding_id;
  await ok(reviewer, 'finding_review', {
    campaign_id: campaignId,
    finding_id: findingId,
    verdict: 'SUPPORTED',
    rationale:
      'The advisory says "accepts crafted headers in versions 2.0 to 2.4 of libmoor" <i>verbatim</i>.',
    evidence_ids: [sourceId],
  });
  console_ = await signedIn(lead.ownerEmail);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('the findings page', () => {
  it('is linked from the campaign page and lists findings with their reviews, all as text', async () => {
    const campaignPage = await console_.get(`/console/campaigns/${campaignId}`);
    expect(campaignPage.text).toContain(`href="${findingsPath()}"`);

    const page = await console_.get(findingsPath());
    expect(page.status).toBe(200);
    const t = page.text;
    // The claim and every list are text, never markup.
    expect(t).toContain('&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; libmoor 2.0-2.4 mis-parses');
    expect(t).not.toContain('<script>alert');
    expect(t).toContain('libmoor 2.0-2.4 &lt;b&gt;bold&lt;/b&gt;');
    expect(t).not.toContain('<b>bold');
    expect(t).toContain('Whether 1.x is affected.');
    expect(t).toContain('The 2.3 changelog claims a header fix.');
    // Status with its meaning, the author, the source-age warning.
    expect(t).toContain('SUPPORTED');
    expect(t).toContain('peer assessment');
    expect(t).toContain(author.agentId);
    expect(t).toContain('SOURCE_TOO_OLD');
    // The review: verdict, reviewer, rationale (escaped), the quote it matched.
    expect(t).toContain(reviewer.agentId);
    expect(t).toContain('&lt;i&gt;verbatim&lt;/i&gt;');
    expect(t).toContain('“accepts crafted headers in versions 2.0 to 2.4 of libmoor”');
    expect(t).toContain(`name="evidence_ids" value="${findingId}"`);
    // The settings as they are: TLP:AMBER by default, same-owner reviews off.
    expect(t).toMatch(/<option value="TLP:AMBER" selected>/);
    expect(t).not.toMatch(/name="allow_same_owner_review" type="checkbox" value="on" checked/);
  });

  it('filters by status', async () => {
    const supported = await console_.get(`${findingsPath()}?status=SUPPORTED`);
    expect(supported.text).toContain(`value="${findingId}"`);
    const contested = await console_.get(`${findingsPath()}?status=CONTESTED`);
    expect(contested.status).toBe(200);
    expect(contested.text).not.toContain(`value="${findingId}"`);
    expect(contested.text).toContain('No findings with status CONTESTED yet.');
  });

  it('is a 404 for another owner, for the page, the settings and the download alike', async () => {
    const other = await signedIn(reviewer.ownerEmail);
    expect((await other.get(findingsPath())).status).toBe(404);
    const csrf = csrfOf((await other.get('/console/campaigns')).text);
    const settings = await other.post(`${findingsPath()}/settings`, { csrf, tlp: 'TLP:RED' });
    expect(settings.status).toBe(404);
    const stix = await other.post(`/console/campaigns/${campaignId}/stix`, { csrf, evidence_ids: findingId });
    expect(stix.status).toBe(404);
    expect(stix.headers.get('content-disposition')).toBeNull();
    // Nothing changed.
    expect((await ownerCall('GET', `/v1/research/campaigns/${campaignId}/findings`)).body.settings.tlp).toBe(
      'TLP:AMBER',
    );
  });

  it('refuses a form without its CSRF token', async () => {
    const res = await console_.post(`/console/campaigns/${campaignId}/stix`, { evidence_ids: findingId });
    expect(res.status).toBe(403);
    const settings = await console_.post(`${findingsPath()}/settings`, { tlp: 'TLP:RED' });
    expect(settings.status).toBe(403);
  });
});

describe('settings and the STIX download in the console', () => {
  it('changes the TLP with the form; the next download carries the new marking', async () => {
    const saved = await console_.submit(findingsPath(), `${findingsPath()}/settings`, { tlp: 'TLP:RED' });
    expect(saved.status, errorOf(saved.text) ?? '').toBe(303);
    expect(saved.location).toBe(`${findingsPath()}?done=settings#settings`);
    const after = await console_.get(`${findingsPath()}?done=settings`);
    expect(after.text).toContain('Settings saved.');
    expect(after.text).toMatch(/<option value="TLP:RED" selected>/);

    const res = await console_.submit(findingsPath(), `/console/campaigns/${campaignId}/stix`, {
      evidence_ids: findingId,
      more_ids: ` ${sourceId}, `,
    });
    expect(res.status).toBe(200);
    // Fastify writes the parameter quoted and adds the charset: the same media type.
    expect(res.headers.get('content-type')).toMatch(/^application\/stix\+json; ?version="?2\.1"?/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${campaignId}.stix.json"`);
    const bundle = JSON.parse(res.text);
    expect(bundle.type).toBe('bundle');
    const ids = (bundle.objects as Array<{ id: string; type: string; object_marking_refs?: string[] }>).map(
      (o) => o.id,
    );
    expect(ids).toContain(TLP_MARKING_IDS['TLP:RED']);
    expect(ids).not.toContain(TLP_MARKING_IDS['TLP:AMBER']);
    const note = bundle.objects.find(
      (o: { type: string; labels?: string[] }) => o.type === 'note' && o.labels?.includes('finding'),
    );
    expect(note.object_marking_refs).toEqual([TLP_MARKING_IDS['TLP:RED']]);
    expect(note.content).toBe(CLAIM);
    expect(bundle.objects.some((o: { type: string }) => o.type === 'opinion')).toBe(true);

    // The owner's change is on the ledger, by the owner, in the same transaction.
    const events = await server.database.db
      .select()
      .from(campaignEvents)
      .where(
        and(eq(campaignEvents.campaignId, campaignId), eq(campaignEvents.kind, 'CAMPAIGN_SETTINGS_CHANGED')),
      );
    expect(events.at(-1)).toMatchObject({
      actorRole: 'OWNER',
      payload: {
        before: { tlp: 'TLP:AMBER', allow_same_owner_review: false },
        after: { tlp: 'TLP:RED', allow_same_owner_review: false },
      },
    });
  });

  it('answers the page again with a clear error for no source, too many, or a malformed id', async () => {
    const none = await console_.submit(findingsPath(), `/console/campaigns/${campaignId}/stix`, {});
    expect(none.status).toBe(422);
    expect(none.headers.get('content-type')).toContain('text/html');
    expect(errorOf(none.text)).toContain('Tick at least one finding');

    const many = Array.from({ length: 20 }, (_, i) => `evd_MANY${String(i).padStart(2, '0')}`);
    const tooMany = await console_.submit(findingsPath(), `/console/campaigns/${campaignId}/stix`, {
      evidence_ids: findingId,
      more_ids: many.join(','),
    });
    expect(tooMany.status).toBe(422);
    expect(errorOf(tooMany.text)).toContain('At most 20 sources');
    expect(tooMany.headers.get('content-disposition')).toBeNull();
    // What was typed and ticked is kept.
    expect(tooMany.text).toContain(`value="${findingId}" checked`);
    expect(tooMany.text).toContain('evd_MANY00,evd_MANY01');

    const bad = await console_.submit(findingsPath(), `/console/campaigns/${campaignId}/stix`, {
      more_ids: '<img src=x>',
    });
    expect(bad.status).toBe(422);
    expect(errorOf(bad.text)).toContain('evidence id looks like evd_');
    expect(bad.text).not.toContain('<img src=x>');

    // A well-formed id the owner cannot see in this campaign is named, on the page.
    const unknown = await console_.submit(findingsPath(), `/console/campaigns/${campaignId}/stix`, {
      more_ids: 'evd_NOSUCHEVIDENCE',
    });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown.text)).toContain('evd_NOSUCHEVIDENCE');
  });

  it('pages through findings with the cursor, keeping the filter', async () => {
    const busy = await campaignWith(lead, [author]);
    const source = await importInto(busy, 'Busy advisory text for many findings.');
    for (let i = 0; i < 21; i++) {
      await ok(author, 'finding_create', {
        campaign_id: busy,
        claim: `Busy finding number ${i}.`,
        evidence_ids: [source],
      });
    }
    const first = await console_.get(`${findingsPath(busy)}?status=UNREVIEWED`);
    expect(first.status).toBe(200);
    expect(first.text.match(/name="evidence_ids" value="/g)).toHaveLength(20);
    expect(first.text).toContain('Busy finding number 20.');
    expect(first.text).not.toContain('Busy finding number 0.');
    const next = /href="([^"]*\/findings\?status=UNREVIEWED&amp;cursor=[^"]+)"/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await console_.get((next as string).replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    expect(second.text.match(/name="evidence_ids" value="/g)).toHaveLength(1);
    expect(second.text).toContain('Busy finding number 0.');
    expect(second.text).not.toContain('Older findings');
  });
});

describe('POST /v1/research/campaigns/{id}/settings', () => {
  it('changes the settings with an owner API token; the findings list answers them', async () => {
    const res = await ownerCall('POST', `/v1/research/campaigns/${campaignId}/settings`, {
      tlp: 'TLP:GREEN',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      campaign_id: campaignId,
      tlp: 'TLP:GREEN',
      allow_same_owner_review: false,
      changed: true,
    });
    const again = await ownerCall('POST', `/v1/research/campaigns/${campaignId}/settings`, {
      tlp: 'TLP:GREEN',
    });
    expect(again.body.changed).toBe(false);
    const list = await ownerCall('GET', `/v1/research/campaigns/${campaignId}/findings`);
    expect(list.body.settings).toEqual({ tlp: 'TLP:GREEN', allow_same_owner_review: false });
  });

  it('refuses an unknown TLP (422), another owner’s campaign (404) and a closed campaign (409)', async () => {
    const unknown = await ownerCall('POST', `/v1/research/campaigns/${campaignId}/settings`, {
      tlp: 'TLP:WHITE',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('VALIDATION_FAILED');

    const otherToken = (await server.app.services.identity.addOwnerToken(reviewer.ownerEmail, 'x', 1)).token;
    const foreign = await ownerCall(
      'POST',
      `/v1/research/campaigns/${campaignId}/settings`,
      { tlp: 'TLP:RED' },
      otherToken,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');

    const closed = await campaignWith(lead, []);
    expect((await ownerCall('POST', `/v1/campaigns/${closed}/close`, {})).body.status).toBe('CLOSED');
    const shut = await ownerCall('POST', `/v1/research/campaigns/${closed}/settings`, { tlp: 'TLP:RED' });
    expect(shut.status).toBe(409);
    expect(shut.body.error.code).toBe('CAMPAIGN_CLOSED');
    // The console form says so on the page; the settings stay as they were.
    const form = await console_.submit(findingsPath(closed), `${findingsPath(closed)}/settings`, {
      tlp: 'TLP:RED',
    });
    expect(form.status).toBe(409);
    expect(errorOf(form.text)).toContain('closed');
    const list = await ownerCall('GET', `/v1/research/campaigns/${closed}/findings`);
    expect(list.body.settings.tlp).toBe('TLP:AMBER');
  });

  it('lets an identity of the author’s owner review once the owner allows same-owner reviews', async () => {
    const f = await ok(author, 'finding_create', {
      campaign_id: campaignId,
      claim: 'libmoor 2.5 fixes the header parsing.',
      evidence_ids: [sourceId],
    });
    const args = {
      campaign_id: campaignId,
      finding_id: f.finding_id,
      verdict: 'SUPPORTED',
      rationale: 'The advisory says "Fixed in 2.5".',
      evidence_ids: [sourceId],
    };
    expect((await refused(sibling, 'finding_review', args)).code).toBe('SAME_OWNER_REVIEW');
    const res = await ownerCall('POST', `/v1/research/campaigns/${campaignId}/settings`, {
      allow_same_owner_review: true,
    });
    expect(res.body).toMatchObject({ allow_same_owner_review: true, tlp: 'TLP:GREEN' });
    const reviewed = await ok(sibling, 'finding_review', args);
    expect(reviewed.review).toMatchObject({ verdict: 'SUPPORTED', reviewer_agent_id: sibling.agentId });
    // The console page shows the box ticked.
    const page = await console_.get(findingsPath());
    expect(page.text).toMatch(/name="allow_same_owner_review" type="checkbox" value="on" checked/);
  });
});

describe('POST /v1/research/imports and credentials (issue 40)', () => {
  it('refuses a file holding a Cairn credential and stores nothing; another service’s secret is research', async () => {
    const key = `cd_prj_${'m3n4p5q6'.repeat(4)}`;
    const refusedImport = await ownerCall('POST', '/v1/research/imports', {
      text: `2026-11-29 agent started with key ${key}\n`,
      campaign_id: campaignId,
    });
    expect(refusedImport.status).toBe(400);
    expect(refusedImport.body.error).toMatchObject({
      code: 'CREDENTIAL_IN_INPUT',
      details: { kind: 'CAIRN_TOKEN' },
    });
    expect(JSON.stringify(refusedImport.body)).not.toContain(key);
    // A leaked AWS key id in a log is often the finding itself: it is kept.
    await importInto(campaignId, '2026-11-29 leaked AKIAABCDEFGHIJKLMNOP in the build log\n');
  });
});
