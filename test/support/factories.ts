import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
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
  // biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary result shapes
  const body = result.structuredContent as Record<string, any>;
  if (result.isError === true && body?.error) await expectPermittedMoves(client, name, body.error);
  return { isError: result.isError === true, body };
}

/**
 * Every refusal any test meets is held to the rule that an agent reading only Cairn's answers
 * finds a permitted next move (issue 39 item 5): a refusal whose next_action names a tool the
 * caller may call carries allowed_alternatives, and every tool an alternative names is one the
 * caller may call now (its tools/list). So the whole suite walks every code it produces.
 */
async function expectPermittedMoves(
  client: Client,
  tool: string,
  error: { code: string; next_action?: string; allowed_alternatives?: Array<{ tool?: string }> },
): Promise<void> {
  let callable: Set<string>;
  try {
    callable = new Set((await client.listTools()).tools.map((t) => t.name));
  } catch {
    return; // A caller that can no longer list tools (revoked, session gone) is told so elsewhere.
  }
  const moves = error.allowed_alternatives ?? [];
  for (const move of moves) {
    if (move.tool) {
      expect(
        callable.has(move.tool),
        `${tool} → ${error.code} offers ${move.tool}, which the caller cannot call`,
      ).toBe(true);
    }
  }
  const named = [...callable].filter((t) => new RegExp(`\\b${t}\\b`).test(error.next_action ?? ''));
  if (named.length > 0) {
    expect(
      moves.length,
      `${tool} → ${error.code}: next_action names ${named.join(', ')} but no allowed_alternatives`,
    ).toBeGreaterThan(0);
  }
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
