import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { IdentityService } from '../../src/domains/identity/index.ts';

/** Fresh ids isolate tests that share one database. */
export const uniqueEmail = () => `owner-${randomUUID()}@example.org`;

export interface TestAgent {
  ownerEmail: string;
  agentId: string;
  key: string;
}

/** An owner, an agent of theirs and a project key, made through the real identity service. */
export async function createAgent(
  identity: IdentityService,
  opts: { mode?: 'READ' | 'NONE'; days?: number; ownerEmail?: string } = {},
): Promise<TestAgent> {
  const ownerEmail = opts.ownerEmail ?? uniqueEmail();
  if (!opts.ownerEmail) await identity.addOwner(ownerEmail, 'correct horse battery staple');
  const { agent_id } = await identity.addAgent({
    ownerEmail,
    displayName: 'Test agent',
    runtime: 'vitest',
    kind: 'OWNER_CREATED',
  });
  if (opts.mode === 'READ') await identity.setMode(agent_id, 'READ');
  const { project_key } = await identity.addProjectKey(agent_id, opts.days ?? 30);
  return { ownerEmail, agentId: agent_id, key: project_key };
}

/** The official MCP SDK client, connected over real HTTP with a bearer credential. */
export async function connectClient(
  baseUrl: string,
  bearer: string,
  name = 'vitest-client',
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its structured result (success or error envelope) and isError. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return {
    isError: result.isError === true,
    // biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary result shapes
    body: result.structuredContent as Record<string, any>,
  };
}

/** A raw MCP initialize with a bearer: 200 when the credential works, 401 (and its challenge) when not. */
export async function mcpInitialize(baseUrl: string, bearer: string) {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

/** One tools/call as a plain HTTP POST to /mcp (no SDK, no session), for tests that need the raw answer. */
export function postToolCall(
  baseUrl: string,
  bearer: string,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    ...(signal ? { signal } : {}),
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}
