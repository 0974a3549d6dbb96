import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidence } from '../../src/domains/reading/tables.ts';
import { fixtureBytes } from '../fixtures/sbom/fixtures.ts';
import {
  campaignWith,
  claimedTask,
  type Member,
  newMember,
  ok,
  publishTask,
  refused,
} from '../support/campaigns.ts';
import { buildPdf } from '../support/pdf-fixture.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 16 items 1-2: POST /v1/research/imports and reading an import back (preview, original,
 * locate), as a person with an owner API token and as the campaign's agents see it.
 */

let server: TestServer;
let coordinator: Member;
let participant: Member;
let outsider: Member;
let campaignId: string;
let ownerToken: string;
let otherToken: string;

beforeAll(async () => {
  server = await startTestServer();
  coordinator = await newMember(server);
  participant = await newMember(server);
  outsider = await newMember(server);
  campaignId = await campaignWith(coordinator, [participant]);
  const identity = server.app.services.identity;
  ownerToken = (await identity.addOwnerToken(coordinator.ownerEmail, 'research', 30)).token;
  otherToken = (await identity.addOwnerToken(outsider.ownerEmail, 'research', 30)).token;
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const api = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${init.token ?? ownerToken}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return res;
};
const json = async (res: Response) => ({ status: res.status, body: await res.json() });
const importFile = async (body: Record<string, unknown>, token?: string) =>
  json(await api('/v1/research/imports', { body, ...(token ? { token } : {}) }));
/**
 * The importing owner's evidence rows: counted for that owner alone, since on the shared
 * PostgreSQL test database other files store evidence at the same time.
 */
const evidenceRows = async () => {
  const owner = await server.app.services.identity.requireOwner(coordinator.ownerEmail);
  return (
    await server.database.db.select({ id: evidence.id }).from(evidence).where(eq(evidence.ownerId, owner.id))
  ).length;
};
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const PAGES = [
  'Advisory CAIRN-1 overview.\nThe parser accepts crafted headers.',
  'Affected versions: libmoor 2.0 through 2.4.\nFixed in libmoor 2.5.',
  'Credits: the moorland security team.',
];

describe('importing a PDF into a campaign', () => {
  const pdf = buildPdf(PAGES, { title: 'CAIRN-1 advisory' });
  let evidenceId: string;

  it('stores it as OWNER_IMPORT evidence, UNVERIFIED, with the hash of the exact bytes (201)', async () => {
    const { status, body } = await importFile({
      data_base64: b64(pdf),
      title: 'Vendor advisory CAIRN-1',
      source_date: '2026-10-01',
      authorized: true,
      source_url: 'https://vendor.example/advisories/cairn-1',
      campaign_id: campaignId,
    });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      provenance: 'OWNER_IMPORT',
      trust_label: 'UNVERIFIED',
      format: 'pdf',
      page_count: 3,
      title: 'Vendor advisory CAIRN-1',
      body_hash: sha256(pdf),
      source_url: 'https://vendor.example/advisories/cairn-1',
      source_date: '2026-10-01T00:00:00.000Z',
      authorized: true,
      campaign_id: campaignId,
    });
    expect(body.next_steps.map((s: { path?: string }) => s.path)).toContain(
      `/v1/research/evidence/${body.evidence_id}/preview?page=1`,
    );
    evidenceId = body.evidence_id;
  });

  it('previews one page at a time with the page count; a page past the end says how many there are', async () => {
    const two = await json(await api(`/v1/research/evidence/${evidenceId}/preview?page=2`));
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ page: 2, page_count: 3, truncated: false, provenance: 'OWNER_IMPORT' });
    expect(two.body.text).toContain('libmoor 2.0 through 2.4');
    expect(two.body.text).not.toContain('Credits');
    const four = await json(await api(`/v1/research/evidence/${evidenceId}/preview?page=4`));
    expect(four.status).toBe(404);
    expect(four.body.error.details).toMatchObject({ page_count: 3 });
    expect((await api(`/v1/research/evidence/${evidenceId}/preview?page=41`)).status).toBe(422);
  });

  it('serves the exact bytes as a download that is never sniffed or rendered', async () => {
    const res = await api(`/v1/research/evidence/${evidenceId}/original`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${evidenceId}.pdf"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true);
  });

  it('locates a quote with its page, normalised spacing too, and only on the page asked for', async () => {
    const found = await json(
      await api(`/v1/research/evidence/${evidenceId}/locate`, { body: { quote: 'Fixed in  libmoor 2.5' } }),
    );
    expect(found.body).toMatchObject({ found: true, page: 2, match: 'NORMALISED' });
    const elsewhere = await json(
      await api(`/v1/research/evidence/${evidenceId}/locate`, {
        body: { quote: 'Fixed in libmoor 2.5', page: 1 },
      }),
    );
    expect(elsewhere.body).toMatchObject({ found: false, near_miss: null });
    const misquoted = await json(
      await api(`/v1/research/evidence/${evidenceId}/locate`, {
        body: { quote: 'Affected versions: libmoor 2.0 through 2.6' },
      }),
    );
    expect(misquoted.body).toMatchObject({ found: false, near_miss: { page: 2 } });
    expect(misquoted.body.near_miss.text).toContain('libmoor 2.0 through 2.4');
    expect(misquoted.body.near_miss.similarity).toBeGreaterThan(0.9);
  });

  it('is evidence the campaign members can cite, and nobody else sees', async () => {
    const seen = (await ok(participant, 'evidence_get', { evidence_id: evidenceId }, false)).evidence;
    expect(seen).toMatchObject({
      provenance: 'OWNER_IMPORT',
      trust_label: 'UNVERIFIED',
      policy_receipt_id: null,
      import: { format: 'pdf', authorized: true },
    });
    const located = await ok(
      participant,
      'evidence_locate',
      { evidence_id: evidenceId, quote: 'crafted headers' },
      false,
    );
    expect(located).toMatchObject({ found: true, page: 1 });
    const near = await ok(
      participant,
      'evidence_locate',
      { evidence_id: evidenceId, quote: 'The parser accepts crafted footers.' },
      false,
    );
    expect(near).toMatchObject({ found: false, near_miss: { page: 1 } });
    expect(near.near_miss.text).toContain('crafted headers');
    expect((await refused(outsider, 'evidence_get', { evidence_id: evidenceId }, false)).code).toBe(
      'NOT_FOUND',
    );
    const other = await api(`/v1/research/evidence/${evidenceId}/preview`, { token: otherToken });
    expect(other.status).toBe(404);
    const events = await ok(participant, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    expect(events.events.map((e: { kind: string }) => e.kind)).toContain('EVIDENCE_IMPORTED');
  });
});

describe('limits and refusals', () => {
  it('refuses a 41-page PDF whole, and stores nothing', async () => {
    const before = await evidenceRows();
    const pdf = buildPdf(Array.from({ length: 41 }, (_, i) => `Page ${i + 1}`));
    const { status, body } = await importFile({ data_base64: b64(pdf), campaign_id: campaignId });
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { reason: 'TOO_MANY_PAGES' } });
    expect(body.error.next_action).toBeTruthy();
    expect(await evidenceRows()).toBe(before);
  });

  it('refuses a file over 12 MiB whole (a text whose UTF-8 is larger than its characters), storing nothing', async () => {
    const before = await evidenceRows();
    const { status, body } = await importFile({ text: 'é'.repeat(6_400_000) });
    expect(status).toBe(413);
    expect(body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { reason: 'IMPORT_TOO_LARGE', max_bytes: 12 * 1024 * 1024 },
    });
    expect(await evidenceRows()).toBe(before);
  });

  it('refuses a log of 5,001 lines and accepts one of 5,000', async () => {
    const lines = (n: number) =>
      Array.from(
        { length: n },
        (_, i) => `2026-11-01T10:00:${String(i % 60).padStart(2, '0')}Z INFO line ${i}`,
      ).join('\n');
    const long = await importFile({ text: lines(5_001), format: 'log' });
    expect(long.status).toBe(413);
    expect(long.body.error.details.reason).toBe('TOO_MANY_LINES');
    const fine = await importFile({ text: lines(5_000), format: 'log' });
    expect(fine.status).toBe(201);
    expect(fine.body).toMatchObject({ format: 'log', line_count: 5_000, campaign_id: null });
  });

  it('refuses an invalid CycloneDX document with the schema path, and makes a valid one searchable', async () => {
    const bad = await importFile({ data_base64: b64(fixtureBytes('cyclonedx-1.6-bad-type.json')) });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.reason).toBe('SBOM_INVALID');
    expect(bad.body.error.details.errors[0].path).toMatch(/^\/components\/\d+/);
    const good = await importFile({
      data_base64: b64(fixtureBytes('cyclonedx-1.6.json')),
      campaign_id: campaignId,
    });
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    expect(good.body).toMatchObject({ format: 'cyclonedx', sbom: { spec_version: '1.6' } });
    expect(good.body.sbom.components).toBeGreaterThan(0);
    const located = await ok(
      participant,
      'evidence_locate',
      { evidence_id: good.body.evidence_id, quote: 'pkg:npm/lodash@4.17.21' },
      false,
    );
    expect(located.found).toBe(true);
  });

  it('refuses a declared format the bytes contradict', async () => {
    const { status, body } = await importFile({ data_base64: b64(buildPdf(['x'])), format: 'png' });
    expect(status).toBe(422);
    expect(body.error.details.reason).toBe('FORMAT_MISMATCH');
  });

  it('validates the request: one of data_base64 and text, known fields, an owner signed in', async () => {
    expect((await importFile({ text: 'a', data_base64: 'YQ==' })).status).toBe(422);
    expect((await importFile({})).status).toBe(422);
    expect((await importFile({ text: 'a', colour: 'red' })).status).toBe(422);
    expect((await importFile({ text: 'a', source_url: 'ftp://x.example/' })).status).toBe(422);
    const anonymous = await fetch(`${server.url}/v1/research/imports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'a' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("refuses another owner's campaign or task as NOT_FOUND, before parsing anything", async () => {
    const theirs = await importFile({ text: 'notes', campaign_id: campaignId }, otherToken);
    expect(theirs.status).toBe(404);
    const taskId = await publishTask(coordinator, campaignId);
    const task = await importFile({ text: 'notes', task_id: taskId }, otherToken);
    expect(task.status).toBe(404);
    const mine = await importFile({ text: 'task notes', task_id: taskId });
    expect(mine.status).toBe(201);
    expect(mine.body).toMatchObject({ campaign_id: campaignId, task_id: taskId });
  });

  it('keeps an import outside campaigns to its owner', async () => {
    const { body } = await importFile({ text: 'Private working notes about libmoor.' });
    expect(body.campaign_id).toBeNull();
    expect((await api(`/v1/research/evidence/${body.evidence_id}/preview`)).status).toBe(200);
    expect((await refused(coordinator, 'evidence_get', { evidence_id: body.evidence_id }, false)).code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('visibility modes', () => {
  it('follows TASK_SCOPED: an import for a task is seen by those involved in it, not by other participants', async () => {
    const lead = await newMember(server);
    const worker = await newMember(server);
    const bystander = await newMember(server);
    const scoped = await campaignWith(lead, [worker, bystander], { visibility: 'TASK_SCOPED' });
    const token = (await server.app.services.identity.addOwnerToken(lead.ownerEmail, 'x', 1)).token;
    const { taskId } = await claimedTask(lead, worker, scoped);
    const { body } = await importFile({ text: 'Scoped notes.', task_id: taskId }, token);
    expect(body.task_id).toBe(taskId);
    expect(
      (await ok(worker, 'evidence_get', { evidence_id: body.evidence_id }, false)).evidence.evidence_id,
    ).toBe(body.evidence_id);
    expect((await refused(bystander, 'evidence_get', { evidence_id: body.evidence_id }, false)).code).toBe(
      'NOT_FOUND',
    );
  });

  it("follows BLIND_EXPERIMENT: an owner import is not a participant's work, so every member sees it", async () => {
    const lead = await newMember(server);
    const a = await newMember(server);
    const blind = await campaignWith(lead, [a], { visibility: 'BLIND_EXPERIMENT' });
    const token = (await server.app.services.identity.addOwnerToken(lead.ownerEmail, 'x', 1)).token;
    const { body } = await importFile({ text: 'Shared brief for everyone.', campaign_id: blind }, token);
    expect((await ok(a, 'evidence_get', { evidence_id: body.evidence_id }, false)).evidence.provenance).toBe(
      'OWNER_IMPORT',
    );
  });
});
