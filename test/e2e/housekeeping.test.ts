import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceAuthorizations } from '../../src/domains/identity/credentials/tables.ts';
import { sweepIdentity } from '../../src/domains/identity/index.ts';
import { mcpNotifications } from '../../src/domains/identity/tables.ts';
import { sweepMail } from '../../src/domains/mail/index.ts';
import { mailDeliveryAttempts, mailProviderDeliveries } from '../../src/domains/mail/tables.ts';
import { FakeClock } from '../../src/kernel/clock.ts';
import { onPostgres } from '../support/database.ts';
import { createAgent, uniqueEmail } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * The sweep against rows made in the past (the clock starts days ago and is brought to now).
 * Some sweeps here look a month ahead (tokens ended 30 days ago leave), which on the shared
 * PostgreSQL test database would end other files' live MCP sessions (and the mail sweep other
 * files' delivery records): on PostgreSQL this file has a database of its own.
 */

let server: TestServer;
let own: OwnDatabase | null = null;
const clock = new FakeClock(new Date(Date.now() - 9 * 86_400_000));

beforeAll(async () => {
  if (onPostgres) own = await ownDatabase('cairn_housekeeping', process.env.TEST_DATABASE_URL as string);
  server = await startTestServer({ clock, ...(own ? { database: own.database } : {}) });
});
afterAll(async () => {
  await server?.close();
  await own?.drop();
});

const rpc = (key: string, body: unknown, sessionId?: string) =>
  fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
};

describe('sweepIdentity', () => {
  it('ends idle sessions, drops their notifications, and deletes long-expired pairing requests', async () => {
    const agent = await createAgent(server.app.services.identity, { days: 30 });
    const idle = (await rpc(agent.key, initialize)).headers.get('mcp-session-id')!;
    const pairing = await server.app.services.device.authorize({ display_name: 'Old pairing', runtime: 'x' });
    await server.app.services.identity.setMode(agent.agentId, 'READ'); // queues a notification for `idle`

    clock.advance(8 * 86_400_000);
    const fresh = (await rpc(agent.key, initialize)).headers.get('mcp-session-id')!;
    const result = await sweepIdentity(server.database.db, clock.now());
    expect(result.ended_mcp_sessions).toBeGreaterThanOrEqual(1);

    const stale = await rpc(agent.key, { jsonrpc: '2.0', id: 2, method: 'ping' }, idle);
    expect(stale.status).toBe(404);
    expect((await stale.json()).error.code).toBe('SESSION_NOT_FOUND');
    expect((await rpc(agent.key, { jsonrpc: '2.0', id: 3, method: 'ping' }, fresh)).status).toBe(200);

    const left = await server.database.db
      .select()
      .from(mcpNotifications)
      .where(eq(mcpNotifications.sessionId, idle));
    expect(left).toHaveLength(0);
    const devices = await server.database.db
      .select()
      .from(deviceAuthorizations)
      .where(eq(deviceAuthorizations.displayName, 'Old pairing'));
    expect(devices.filter((d) => d.userCode === pairing.user_code.replace('-', ''))).toHaveLength(0);
  });

  it('deletes owner API tokens 30 days after they were revoked or expired, and keeps the others', async () => {
    const identity = server.app.services.identity;
    const email = uniqueEmail();
    await identity.addOwner(email, 'correct horse battery staple');
    const revoked = await identity.addOwnerToken(email, 'revoked', 365);
    await identity.revokeOwnerToken(email, revoked.token_id);
    await identity.addOwnerToken(email, 'expired', 1);
    await identity.addOwnerToken(email, 'live', 365);
    const names = async () => (await identity.listOwnerTokens(email)).tokens.map((t) => t.name).sort();

    // 29 days on, the ended ones are still listed, so their owner sees what ended.
    expect(
      (await sweepIdentity(server.database.db, new Date(clock.now().getTime() + 29 * 86_400_000)))
        .deleted_owner_tokens,
    ).toBe(0);
    expect(await names()).toEqual(['expired', 'live', 'revoked']);
    const later = await sweepIdentity(server.database.db, new Date(clock.now().getTime() + 32 * 86_400_000));
    expect(later.deleted_owner_tokens).toBeGreaterThanOrEqual(2);
    expect(await names()).toEqual(['live']);
  });
});

describe('sweepMail', () => {
  it('keeps mailbox attempts three months, unaddressed ones a week, and the replay guard as long as it can matter', async () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const days = (n: number) => new Date(t0.getTime() + n * 86_400_000);
    const attempt = (id: string, campaignId: string | null) => ({
      id,
      campaignId,
      via: 'SMTP',
      recipient: campaignId ? 'box@mail.test' : null,
      remote: '192.0.2.1',
      size: 10,
      outcome: 'REFUSED',
      reason: campaignId ? 'MAILBOX_FULL' : 'BAD_SIGNATURE',
      mailId: null,
      providerDeliveryId: null,
      createdAt: t0,
    });
    const db = server.database.db;
    await db
      .insert(mailDeliveryAttempts)
      .values([attempt('mat_sweep_box', 'cmp_sweep'), attempt('mat_sweep_none', null)]);
    await db.insert(mailProviderDeliveries).values([
      { via: 'MAILGUN', deliveryId: 'sweep-token', seenAt: t0 },
      { via: 'POSTAL', deliveryId: 'sweep-postal-1', seenAt: t0 },
    ]);
    const left = async () => ({
      attempts: (await db.select({ id: mailDeliveryAttempts.id }).from(mailDeliveryAttempts))
        .map((r) => r.id)
        .filter((id) => id.startsWith('mat_sweep'))
        .sort(),
      deliveries: (await db.select({ id: mailProviderDeliveries.deliveryId }).from(mailProviderDeliveries))
        .map((r) => r.id)
        .filter((id) => id.startsWith('sweep'))
        .sort(),
    });

    await sweepMail(db, days(0.5));
    expect(await left()).toEqual({
      attempts: ['mat_sweep_box', 'mat_sweep_none'],
      deliveries: ['sweep-postal-1', 'sweep-token'],
    });
    await sweepMail(db, days(2));
    expect((await left()).deliveries).toEqual(['sweep-postal-1']);
    await sweepMail(db, days(8));
    expect((await left()).attempts).toEqual(['mat_sweep_box']);
    await sweepMail(db, days(89));
    expect(await left()).toEqual({ attempts: ['mat_sweep_box'], deliveries: ['sweep-postal-1'] });
    await sweepMail(db, days(91));
    expect(await left()).toEqual({ attempts: [], deliveries: [] });
  });
});
