import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthRequests,
} from '../../src/domains/identity/credentials/tables.ts';
import { OAuthClientService, sweepIdentity } from '../../src/domains/identity/index.ts';
import { FakeClock } from '../../src/kernel/clock.ts';
import { startConsent } from '../support/consent.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Open registration and authorization leave rows behind: the sweep deletes what never led
 * anywhere. Rows are made 40 days in the past, so sweeping at the real time touches no other test.
 */

let server: TestServer;
const clock = new FakeClock(new Date(Date.now() - 40 * 86_400_000));

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

describe('sweepIdentity and OAuth', () => {
  it('deletes expired requests and codes and unused clients, and keeps approved connections', async () => {
    const db = server.database.db;
    const unused = await new OAuthClientService(server.database, clock).register({
      redirect_uris: ['http://127.0.0.1:9/cb'],
      token_endpoint_auth_method: 'none',
    });
    const pending = await startConsent(server, clock);
    const approved = await startConsent(server, clock);
    const email = uniqueEmail();
    const { owner_id } = await server.app.services.identity.addOwner(email, 'correct horse battery staple');
    await server.app.services.oauth.decide(owner_id, approved.requestId, true, approved.binding);

    const result = await sweepIdentity(db, new Date());
    expect(result.deleted_oauth_requests).toBeGreaterThanOrEqual(2);
    expect(result.deleted_oauth_codes).toBeGreaterThanOrEqual(1);
    const requests = await db
      .select()
      .from(oauthRequests)
      .where(inArray(oauthRequests.id, [pending.requestId, approved.requestId]));
    expect(requests).toEqual([]);
    const clients = await db
      .select({ id: oauthClients.id })
      .from(oauthClients)
      .where(inArray(oauthClients.id, [unused.client_id, pending.clientId, approved.clientId]));
    // The client an owner approved stays with its connection; the others are gone.
    expect(clients).toEqual([{ id: approved.clientId }]);
    expect(
      await db.select().from(oauthGrants).where(eq(oauthGrants.clientId, approved.clientId)),
    ).toHaveLength(1);
    expect(await db.select().from(oauthCodes).where(eq(oauthCodes.clientId, approved.clientId))).toEqual([]);
  });
});
