import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Visitor } from '../support/console-visitor.ts';
import { connectClient, createAgent, uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** SPEC Events 2: owner messages reach the agent through its inbox on later calls, and as notifications. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function ownerWithAgent() {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  const agent = await createAgent(server.app.services.identity, { mode: 'READ', ownerEmail: email });
  return { visitor, agent };
}

describe('owner messages', () => {
  it('are announced to open sessions and handed out once with the next tool result', async () => {
    const { visitor, agent } = await ownerWithAgent();
    const client = await connectClient(server.url, agent.key);
    const heard = new Promise<Record<string, unknown>>((resolve) => {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) =>
        resolve(n.params.data as Record<string, unknown>),
      );
    });
    const path = `/console/identities/${agent.agentId}`;
    const sent = await visitor.submit(path, `${path}/messages`, {
      text: 'Please read the moorland guide next.',
    });
    expect(sent.status).toBe(303);

    const data = await Promise.race([
      heard,
      new Promise<never>((_, no) => setTimeout(() => no(new Error('no notification')), 5_000)),
    ]);
    expect(data).toMatchObject({
      type: 'OWNER_MESSAGE',
      label: 'OWNER_COMMENT',
      text: 'Please read the moorland guide next.',
    });

    const first = await client.callTool({ name: 'identity_whoami', arguments: {} });
    const inbox = (first._meta as Record<string, Array<Record<string, string>>>)['cairn/owner_messages'];
    expect(inbox).toEqual([
      expect.objectContaining({ label: 'OWNER_COMMENT', text: 'Please read the moorland guide next.' }),
    ]);
    expect((first.content as Array<{ text: string }>)[1]?.text).toContain('Message from your owner');
    // The tool's own answer is untouched.
    expect(first.structuredContent).toMatchObject({ agent_id: agent.agentId });
    const second = await client.callTool({ name: 'identity_whoami', arguments: {} });
    expect(second._meta?.['cairn/owner_messages']).toBeUndefined();
    expect(second.content).toHaveLength(1);
    await client.close();
  });

  it('wait in the inbox when no session is open, and only the owner may send them', async () => {
    const { visitor, agent } = await ownerWithAgent();
    const path = `/console/identities/${agent.agentId}`;
    expect((await visitor.submit(path, `${path}/messages`, { text: 'While you were away.' })).status).toBe(
      303,
    );
    expect((await visitor.submit(path, `${path}/messages`, { text: 'x'.repeat(8_001) })).status).toBe(422);
    const stranger = await ownerWithAgent();
    const foreign = await stranger.visitor.submit(
      `/console/identities/${stranger.agent.agentId}`,
      `${path}/messages`,
      {
        text: 'Not yours.',
      },
    );
    expect(foreign.status).toBe(404);

    const client = await connectClient(server.url, agent.key);
    const result = await client.callTool({ name: 'capabilities_describe', arguments: {} });
    const inbox = (result._meta as Record<string, Array<Record<string, string>>>)['cairn/owner_messages'];
    expect(inbox?.map((m) => m.text)).toEqual(['While you were away.']);
    await client.close();
  });
});
