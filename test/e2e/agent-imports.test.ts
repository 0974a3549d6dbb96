import { createHash } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidence } from '../../src/domains/reading/tables.ts';
import { campaignWith, key, type Member, newMember, ok, publishTask, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { buildPdf } from '../support/pdf-fixture.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 16: agents import through evidence_submit (SPEC "Agents import through evidence_submit
 * (provenance AGENT_SUBMITTED, unverified) with the same formats"), and evidence_submit with
 * evidence_id works as it always did.
 */

let server: TestServer;
let coordinator: Member;
let participant: Member;
let outsider: Member;
let campaignId: string;

beforeAll(async () => {
  server = await startTestServer();
  coordinator = await newMember(server);
  participant = await newMember(server);
  outsider = await newMember(server);
  campaignId = await campaignWith(coordinator, [participant]);
  // A member of its own campaign only: evidence_submit is offered to it, this campaign is not.
  await campaignWith(outsider, []);
}, 60_000);
afterAll(async () => {
  for (const m of [coordinator, participant, outsider]) await m?.client.close();
  await server?.close();
});

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
/**
 * Evidence of this file's agents (every import here is theirs): a global count would change
 * while other files store evidence on the shared PostgreSQL test database.
 */
const evidenceRows = async () =>
  (
    await server.database.db
      .select({ id: evidence.id })
      .from(evidence)
      .where(inArray(evidence.agentId, [coordinator.agentId, participant.agentId, outsider.agentId]))
  ).length;

const NOTES = 'Field notes: the curlew nest on the upper moor held four eggs on 3 May.\nSecond line.';

describe('evidence_submit with a file', () => {
  let textId: string;

  it('imports a text file as AGENT_SUBMITTED, UNVERIFIED evidence in the campaign', async () => {
    const taskId = await publishTask(coordinator, campaignId);
    const r = await ok(participant, 'evidence_submit', {
      campaign_id: campaignId,
      task_id: taskId,
      text: NOTES,
      title: 'Curlew field notes',
      source_date: '2026-05-03',
      authorized: true,
      note: 'My own notes from the survey.',
    });
    expect(r).toMatchObject({
      campaign_id: campaignId,
      task_id: taskId,
      already_shared: false,
      visibility: 'SHARED',
      imported: {
        provenance: 'AGENT_SUBMITTED',
        trust_label: 'UNVERIFIED',
        format: 'text',
        title: 'Curlew field notes',
        page_count: 1,
        body_hash: sha256(Buffer.from(NOTES, 'utf8')),
        source_url: null,
        source_date: '2026-05-03T00:00:00.000Z',
        authorized: true,
      },
    });
    expect(r.evidence_id).toMatch(/^evd_/);
    expect(r.next_steps.map((s: { tool: string }) => s.tool)).toEqual(['evidence_view', 'evidence_locate']);
    expect(r.next_steps[0].arguments).toEqual({ evidence_id: r.evidence_id, page: 1 });
    textId = r.evidence_id;
  });

  it('is seen by another member under SHARED, with its provenance, and on the ledger', async () => {
    const seen = (await ok(coordinator, 'evidence_get', { evidence_id: textId }, false)).evidence;
    expect(seen).toMatchObject({ provenance: 'AGENT_SUBMITTED', trust_label: 'UNVERIFIED' });
    const located = await ok(
      coordinator,
      'evidence_locate',
      { evidence_id: textId, quote: 'held four eggs on 3 May' },
      false,
    );
    expect(located.found).toBe(true);
    const events = await ok(coordinator, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    const imported = events.events.find(
      (e: { kind: string; evidence_ids?: string[] }) =>
        e.kind === 'EVIDENCE_IMPORTED' && JSON.stringify(e).includes(textId),
    );
    expect(imported, JSON.stringify(events.events)).toBeTruthy();
    expect(JSON.stringify(imported)).toContain(participant.agentId);
  });

  it('imports a small PDF sent as base64, page by page', async () => {
    const pdf = buildPdf(['Moorland report, page one.', 'Golden plover counts rose in 2026.'], {
      title: 'Moorland report',
    });
    const r = await ok(participant, 'evidence_submit', {
      campaign_id: campaignId,
      data_base64: Buffer.from(pdf).toString('base64'),
      source_url: 'https://moor.example/report.pdf',
    });
    expect(r.imported).toMatchObject({
      provenance: 'AGENT_SUBMITTED',
      trust_label: 'UNVERIFIED',
      format: 'pdf',
      page_count: 2,
      body_hash: sha256(pdf),
      source_url: 'https://moor.example/report.pdf',
    });
    const page = await ok(coordinator, 'evidence_view', { evidence_id: r.evidence_id, page: 2 }, false);
    expect(JSON.stringify(page)).toContain('Golden plover counts rose in 2026.');
  });

  it('refuses a non-member, and stores nothing', async () => {
    const before = await evidenceRows();
    const error = await refused(outsider, 'evidence_submit', {
      campaign_id: campaignId,
      text: 'Not mine to add.',
    });
    expect(error.code).toBe('NOT_A_MEMBER');
    expect(await evidenceRows()).toBe(before);
  });

  it('refuses evidence_id together with a file, naming the fields', async () => {
    const error = await refused(participant, 'evidence_submit', {
      campaign_id: campaignId,
      evidence_id: textId,
      text: 'More notes.',
    });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('evidence_id');
    expect(error.details.detail).toEqual([
      { loc: ['arguments', 'text'], msg: 'not allowed together with evidence_id', type: 'conflict' },
    ]);
    const both = await refused(participant, 'evidence_submit', { text: 'a', data_base64: 'YQ==' });
    expect(both.code).toBe('VALIDATION_FAILED');
    expect((both.details.detail as Array<{ loc: string[] }>).map((d) => d.loc[1])).toEqual([
      'data_base64',
      'text',
    ]);
    const neither = await refused(participant, 'evidence_submit', { title: 'A title alone' });
    expect(neither.code).toBe('VALIDATION_FAILED');
    expect(neither.message).toContain('data_base64');
  });

  it('refuses what the import refuses (a format the bytes contradict), and stores nothing', async () => {
    const before = await evidenceRows();
    const error = await refused(participant, 'evidence_submit', {
      data_base64: Buffer.from(buildPdf(['x'])).toString('base64'),
      format: 'png',
    });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.reason).toBe('FORMAT_MISMATCH');
    expect(await evidenceRows()).toBe(before);
  });

  it('refuses a text file holding a credential, as every tool argument, and stores nothing', async () => {
    const before = await evidenceRows();
    const error = await refused(participant, 'evidence_submit', {
      text: 'deploy log\nusing token cd_acc_abcdefghijklmnopqrstuvwxyz234567 for the push\n',
      format: 'log',
    });
    expect(error.code).toBe('CREDENTIAL_IN_INPUT');
    expect(await evidenceRows()).toBe(before);
    // The same file as base64 is read first, then held to the same rule.
    const encoded = await refused(participant, 'evidence_submit', {
      data_base64: Buffer.from(
        'deploy log\nusing token cd_acc_abcdefghijklmnopqrstuvwxyz234567 for the push\n',
      ).toString('base64'),
      format: 'log',
    });
    expect(encoded.code).toBe('CREDENTIAL_IN_INPUT');
    expect(await evidenceRows()).toBe(before);
  });

  it('answers a repeated idempotency_key with the first result, importing once', async () => {
    const args = { text: 'Once only.', idempotency_key: key() };
    const first = await callTool(participant.client, 'evidence_submit', args);
    const before = await evidenceRows();
    const again = await callTool(participant.client, 'evidence_submit', args);
    expect(again.body.evidence_id).toBe(first.body.evidence_id);
    expect(await evidenceRows()).toBe(before);
  });
});

describe('evidence_submit with evidence_id, as before', () => {
  it("shares the agent's own evidence into another campaign, answering as it always did", async () => {
    const own = await ok(participant, 'evidence_submit', {
      campaign_id: campaignId,
      text: 'Portable notes.',
    });
    const other = await campaignWith(participant, []);
    const shared = await ok(participant, 'evidence_submit', {
      campaign_id: other,
      evidence_id: own.evidence_id,
      note: 'Useful here too.',
    });
    expect(shared).toEqual({
      evidence_id: own.evidence_id,
      campaign_id: other,
      task_id: null,
      already_shared: false,
      visibility: 'SHARED',
    });
    const again = await ok(participant, 'evidence_submit', {
      campaign_id: other,
      evidence_id: own.evidence_id,
    });
    expect(again.already_shared).toBe(true);
  });
});
