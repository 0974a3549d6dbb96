import type { FastifyBaseLogger } from 'fastify';
import { SERVER_NAME, SERVER_VERSION } from '../../domains/discovery/index.ts';
import type { Caller, InboxMessage } from '../../domains/identity/index.ts';
import { META, type RpcId } from './modern-request.ts';
import type { McpDeps } from './surface.ts';

/** What every 2026-07-28 method handler is given, and the shape of what it answers. */

export const SERVER_INFO = { name: SERVER_NAME, version: SERVER_VERSION };

export interface ModernContext {
  caller: Caller;
  deps: McpDeps;
  requestId: string;
  takeInbox: (() => Promise<InboxMessage[]>) | null;
  log: FastifyBaseLogger;
  gone: AbortSignal;
}

/** A JSON-RPC answer and the HTTP status it travels with. */
export interface ModernAnswer {
  status: number;
  message: Record<string, unknown>;
}

/** A final result: `resultType` and the server's identity on every one. */
export function result(id: RpcId, body: Record<string, unknown>): ModernAnswer {
  const meta = (body._meta as Record<string, unknown> | undefined) ?? {};
  return {
    status: 200,
    message: {
      jsonrpc: '2.0',
      id,
      result: { resultType: 'complete', ...body, _meta: { ...meta, [META.serverInfo]: SERVER_INFO } },
    },
  };
}

export function error(
  status: number,
  id: RpcId | undefined,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): ModernAnswer {
  return {
    status,
    message: {
      jsonrpc: '2.0',
      ...(id === undefined ? {} : { id }),
      error: { code, message, ...(data ? { data } : {}) },
    },
  };
}
