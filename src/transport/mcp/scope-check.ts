import type { FastifyReply } from 'fastify';
import type { Caller } from '../../domains/identity/index.ts';
import {
  DEFAULT_SCOPE,
  type OperationRunner,
  scopeNeeded,
  scopeString,
  scopesCover,
} from '../../framework/index.ts';
import { errorEnvelope } from '../../kernel/errors.ts';

/**
 * MCP's scope challenge (authorization, "Scope Challenge Handling"; RFC 6750 §3.1): a tools/call
 * whose tool the access token's scopes do not cover is answered HTTP 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope"`, naming the scopes the client should ask
 * for (those it holds and the one the tool needs, so stepping up loses nothing) and the resource
 * metadata. A JSON-RPC error for the request's id rides in the body, with the envelope in data.
 * Checked before the request reaches either era's handler, so both answer alike.
 */

interface Challenge {
  id: unknown;
  tool: string;
  scope: string;
  needed: string;
}

/** The first tools/call of the body (one message, or a 2025-era batch) that the scopes refuse. */
function challengeOf(body: unknown, caller: Caller, runner: OperationRunner<unknown>): Challenge | null {
  if (caller.scopes === undefined) return null;
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params, id } = message as { method?: unknown; params?: { name?: unknown }; id?: unknown };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const op = runner.get(params.name);
    if (!op || scopesCover(caller.scopes, op)) continue;
    const needed = scopeNeeded(op) ?? DEFAULT_SCOPE;
    return { id, tool: op.name, needed, scope: scopeString([...caller.scopes, needed]) };
  }
  return null;
}

/** Sends the 403 challenge and answers true when the body calls a tool the scopes do not cover. */
export function refuseOutOfScope(
  reply: FastifyReply,
  body: unknown,
  caller: Caller,
  runner: OperationRunner<unknown>,
  baseUrl: string,
): boolean {
  const challenge = challengeOf(body, caller, runner);
  if (!challenge) return false;
  const held = scopeString(caller.scopes ?? []);
  const description = `${challenge.tool} needs the scope ${challenge.needed}; this token was approved for ${held}`;
  reply.header(
    'www-authenticate',
    `Bearer realm="cairn", error="insufficient_scope", scope="${challenge.scope}", resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp", error_description="${description}"`,
  );
  const envelope = errorEnvelope('INSUFFICIENT_SCOPE', `${description}.`, {
    tool: challenge.tool,
    scope_needed: challenge.needed,
    scopes_held: caller.scopes,
  });
  const id = typeof challenge.id === 'string' || typeof challenge.id === 'number' ? challenge.id : null;
  reply
    .code(403)
    .type('application/json')
    .send(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32600,
          message: `Insufficient scope: ${description}. Authorize again asking for scope "${challenge.scope}".`,
          data: envelope,
        },
      }),
    );
  return true;
}
