import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTokens } from '../../src/domains/identity/credentials/tables.ts';
import { DEVICE_GRANT, type OAuthHarness, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Resource indicators (RFC 8707): every grant for /mcp, every token with its audience. */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

describe(
  'tokens bound to their resource (RFC 8707)',
  oauthCheck('fetch', 'resource indicators (RFC 8707)'),
  () => {
    it('refuses a grant for any other resource, and records /mcp as the audience of every token', async () => {
      const elsewhere = 'https://elsewhere.example/mcp';
      const { device_code, user_code } = await h.startPairing();
      await h.server.app.services.device.decide(await h.newOwner(), user_code, {
        approve: true,
        activateRead: true,
      });
      h.clock.advance(6_000);
      const foreign = await h.post('/oauth/token', {
        grant_type: DEVICE_GRANT,
        device_code,
        resource: elsewhere,
      });
      expect(foreign).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
      const paired = await h.post('/oauth/token', {
        grant_type: DEVICE_GRANT,
        device_code,
        resource: `${h.server.url}/mcp`,
      });
      expect(paired.status).toBe(200);

      const created = await h.server.app.services.management.createIdentity(await h.newOwner(), {
        displayName: 'Scripted agent',
        runtime: 'cron',
        bootstrapDays: 1,
      });
      const exchange = (resource: string) =>
        h.post(
          '/oauth/token',
          { grant_type: 'client_credentials', client_secret: created.bootstrap_token, resource },
          true,
        );
      expect(await exchange(elsewhere)).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
      const bootstrapped = await exchange(`${h.server.url}/mcp`);
      expect(bootstrapped.status).toBe(200);

      for (const agentId of [paired.body.agent_id, created.agent_id]) {
        const rows = await h.server.database.db
          .select({ audience: agentTokens.audience })
          .from(agentTokens)
          .where(eq(agentTokens.agentId, agentId));
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((r) => r.audience === `${h.server.url}/mcp`)).toBe(true);
      }
      expect((await h.mcpStatus(paired.body.access_token)).status).toBe(200);
    });

    it('refuses at /mcp a token whose audience is another resource', async () => {
      const created = await h.server.app.services.management.createIdentity(await h.newOwner(), {
        displayName: 'Scripted agent',
        runtime: 'cron',
        bootstrapDays: 1,
      });
      const { body } = await h.post(
        '/oauth/token',
        { grant_type: 'client_credentials', client_secret: created.bootstrap_token },
        true,
      );
      expect((await h.mcpStatus(body.access_token)).status).toBe(200);
      // As if another server (another resource) had issued it into the same database.
      await h.server.database.db
        .update(agentTokens)
        .set({ audience: 'https://elsewhere.example/mcp' })
        .where(eq(agentTokens.agentId, created.agent_id));
      const refused = await h.mcpStatus(body.access_token);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain('error="invalid_token"');
    });
  },
);
