import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMember, ok } from '../support/campaigns.ts';
import { errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 1: the Arena is a separate owner decision per identity, apart from READ and
 * campaign membership, taken with the owner API or on the identity's console page; the
 * identity's open sessions hear that their tool list changed.
 */

const PASSWORD = 'correct horse battery staple';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function panel(page: Page, id: string): string {
  const m = new RegExp(`<section class="panel[^"]*" id="${id}">([\\s\\S]*?)</section>`).exec(page.text);
  return m?.[1] ?? '';
}

describe('Arena activation', () => {
  it('is off until the owner turns it on, apart from READ; sessions hear of the change; others get 404', async () => {
    const m = await newMember(server);
    expect((await ok(m, 'identity_whoami', {}, false)).arena).toEqual({ enabled: false });
    const heard = new Promise<string>((resolve) => {
      m.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
    });
    await new Promise((r) => setTimeout(r, 200));
    const token = await ownerTokenOf(server, m);
    const on = await ownerApi(server, token, 'POST', `/v1/agents/${m.agentId}/arena`, { enabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ agent_id: m.agentId, arena: { enabled: true }, changed: true });
    expect(
      await Promise.race([
        heard,
        new Promise((_, no) => setTimeout(() => no(new Error('no list_changed')), 5_000)),
      ]),
    ).toBe('notifications/tools/list_changed');
    const who = await ok(m, 'identity_whoami', {}, false);
    expect(who.arena).toEqual({ enabled: true });
    // READ stays as it was: the two are separate decisions.
    expect(who.mode).toBe('READ');
    const again = await ownerApi(server, token, 'POST', `/v1/agents/${m.agentId}/arena`, { enabled: true });
    expect(again.body.changed).toBe(false);

    const stranger = await newMember(server);
    const theirs = await ownerApi(
      server,
      await ownerTokenOf(server, stranger),
      'POST',
      `/v1/agents/${m.agentId}/arena`,
      {
        enabled: false,
      },
    );
    expect(theirs.status).toBe(404);
    const bad = await ownerApi(server, token, 'POST', `/v1/agents/${m.agentId}/arena`, { enabled: 'yes' });
    expect(bad.status).toBe(422);

    const off = await ownerApi(server, token, 'POST', `/v1/agents/${m.agentId}/arena`, { enabled: false });
    expect(off.body.arena).toEqual({ enabled: false });
    expect((await ok(m, 'identity_whoami', {}, false)).arena).toEqual({ enabled: false });
  });

  it('is turned on and off on the identity’s console page, with the CSRF token', async () => {
    const email = uniqueEmail();
    await server.app.services.identity.addOwner(email, PASSWORD);
    const visitor = new Visitor(server.url);
    expect((await visitor.signIn(email)).status).toBe(303);
    const agent = await newMember(server, email);
    const path = `/console/identities/${agent.agentId}`;
    const before = await visitor.get(path);
    expect(panel(before, 'arena')).toContain('<dd id="arena-state"><span class="badge off">OFF</span>');
    const forged = await visitor.post(`${path}/arena`, { enabled: 'on' });
    expect(forged.status).toBe(403);
    const saved = await visitor.submit(path, `${path}/arena`, { enabled: 'on' });
    expect(saved.status).toBe(303);
    const after = await visitor.get(saved.location ?? path);
    expect(errorOf(after.text)).toBeNull();
    expect(panel(after, 'arena')).toContain('<span class="badge on">ON</span>');
    expect((await ok(agent, 'identity_whoami', {}, false)).arena).toEqual({ enabled: true });
    const cleared = await visitor.submit(path, `${path}/arena`, {});
    expect(cleared.status).toBe(303);
    expect((await ok(agent, 'identity_whoami', {}, false)).arena).toEqual({ enabled: false });
  });

  it('lists the challenge versions that can be assigned, to owners only', async () => {
    const m = await newMember(server);
    const token = await ownerTokenOf(server, m);
    const listed = await ownerApi(server, token, 'GET', '/v1/arena/challenges');
    expect(listed.status).toBe(200);
    const ids = listed.body.challenges.map((c: { challenge_id: string }) => c.challenge_id).sort();
    expect(ids).toEqual(
      expect.arrayContaining([
        'cite-quotation',
        'fix-failing-program',
        'pdf-table-to-json',
        'reconcile-sources',
        'team-handoff',
      ]),
    );
    for (const c of listed.body.challenges) {
      expect(c.package_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(c.max_score).toBe(c.rubric.reduce((n: number, l: { points: number }) => n + l.points, 0));
      expect(c.time_limit_minutes).toBeLessThanOrEqual(60);
    }
    expect(
      listed.body.challenges.find((c: { challenge_id: string }) => c.challenge_id === 'team-handoff'),
    ).toMatchObject({
      mode: 'TEAM',
      team_size: 2,
    });
    expect((await fetch(`${server.url}/v1/arena/challenges`)).status).toBe(401);
  });
});
