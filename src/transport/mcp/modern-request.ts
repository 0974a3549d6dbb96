import type { FastifyRequest } from 'fastify';
import { headerMismatch } from './modern-headers.ts';

/**
 * MCP 2026-07-28 beside the 2025 revisions on one endpoint (basic/versioning, "dual-era"):
 * which requests are the modern revision's, and the checks each must pass before it is
 * dispatched, in the order the revision's Streamable HTTP transport gives them.
 */

/** The revisions served statelessly, per request. server/discover and -32022 list exactly these. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
/** The revisions negotiated by initialize and served in sessions (by the SDK). */
const LEGACY_VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedVersion: -32022,
} as const;

export type RpcId = string | number;

/** A modern request that passed every envelope check: what the method handlers read. */
export interface ModernRequest {
  id: RpcId;
  method: string;
  params: Record<string, unknown>;
  /** The capabilities the client declared on this request; never inferred from another. */
  clientCapabilities: Record<string, unknown>;
}

/** A JSON-RPC error with the HTTP status the transport gives it. */
export interface ModernRefusal {
  status: number;
  id: RpcId | undefined;
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/**
 * Whether a POST belongs to the modern revision: its header names a revision that is not a
 * 2025-era one, or its params carry the per-request protocol version. Anything else (no header
 * and no per-request version, or a 2025-era header) is a session request for the SDK.
 */
export function isModernPost(req: FastifyRequest): boolean {
  const header = single(req.headers['mcp-protocol-version']);
  if (header !== undefined && !LEGACY_VERSIONS.has(header.trim())) return true;
  return metaOf(req.body) !== undefined && META.protocolVersion in (metaOf(req.body) as object);
}

/** Whether a GET or DELETE speaks the modern revision: there is nothing for it on this endpoint. */
export function isModernHeader(req: FastifyRequest): boolean {
  const header = single(req.headers['mcp-protocol-version']);
  return header !== undefined && !LEGACY_VERSIONS.has(header.trim());
}

/**
 * The checks of a modern POST before dispatch, in the transport's order: a JSON-RPC request
 * (batches are gone), the protocol version header, Mcp-Method/Mcp-Name against the body, the
 * required `_meta`, the version in `_meta` against the header, and a served version. A
 * notification returns 'notification' (202, nothing to answer).
 */
export function checkModernRequest(req: FastifyRequest): ModernRequest | ModernRefusal | 'notification' {
  const body = req.body;
  if (Array.isArray(body)) {
    return refuse(
      400,
      undefined,
      RPC.invalidRequest,
      'Invalid Request: 2026-07-28 has no batches; send one JSON-RPC message per POST.',
    );
  }
  if (!isRecord(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
    return refuse(
      400,
      readableId(body),
      RPC.invalidRequest,
      'Invalid Request: send {"jsonrpc": "2.0", "id", "method", "params"}.',
    );
  }
  if (!('id' in body)) return 'notification';
  const id = readableId(body);
  if (id === undefined) {
    return refuse(
      400,
      undefined,
      RPC.invalidRequest,
      'Invalid Request: the id must be a string or a number.',
    );
  }
  const method = body.method;
  const params = body.params === undefined ? {} : body.params;
  const header = single(req.headers['mcp-protocol-version'])?.trim();
  if (header === undefined) {
    return refuse(
      400,
      id,
      RPC.headerMismatch,
      'The MCP-Protocol-Version header is missing; send the version your _meta names, e.g. MCP-Protocol-Version: 2026-07-28.',
    );
  }
  if (!isRecord(params))
    return refuse(400, id, RPC.invalidParams, 'Invalid params: params must be an object holding _meta.');
  const mismatch = headerMismatch(req.headers, method, params);
  if (mismatch) return refuse(400, id, RPC.headerMismatch, mismatch);
  const meta = params._meta;
  if (!isRecord(meta)) {
    return refuse(
      400,
      id,
      RPC.invalidParams,
      `Invalid params: params._meta is required, with "${META.protocolVersion}" and "${META.clientCapabilities}".`,
    );
  }
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') {
    return refuse(
      400,
      id,
      RPC.invalidParams,
      `Invalid params: params._meta["${META.protocolVersion}"] must be the protocol version, a string.`,
    );
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isRecord(capabilities)) {
    return refuse(
      400,
      id,
      RPC.invalidParams,
      `Invalid params: params._meta["${META.clientCapabilities}"] must be an object ({} for none).`,
    );
  }
  const level = meta[META.logLevel];
  if (level !== undefined && (typeof level !== 'string' || !LOG_LEVELS.has(level))) {
    return refuse(
      400,
      id,
      RPC.invalidParams,
      `Invalid params: params._meta["${META.logLevel}"] must be one of ${[...LOG_LEVELS].join(', ')}.`,
    );
  }
  if (version !== header) {
    return refuse(
      400,
      id,
      RPC.headerMismatch,
      `Header mismatch: MCP-Protocol-Version header value '${header.slice(0, 40)}' does not match _meta value '${version.slice(0, 40)}'.`,
    );
  }
  if (!(MODERN_VERSIONS as readonly string[]).includes(version)) {
    return refuse(
      400,
      id,
      RPC.unsupportedVersion,
      `Unsupported protocol version: this server serves ${MODERN_VERSIONS.join(', ')} per request, and 2025-11-25, 2025-06-18 and 2025-03-26 through initialize.`,
      { supported: [...MODERN_VERSIONS], requested: version },
    );
  }
  return { id, method, params, clientCapabilities: capabilities };
}

export function isRefusal(value: ModernRequest | ModernRefusal | 'notification'): value is ModernRefusal {
  return typeof value === 'object' && 'code' in value;
}

function refuse(
  status: number,
  id: RpcId | undefined,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): ModernRefusal {
  return { status, id, code, message, ...(data ? { data } : {}) };
}

/** A request id as JSON-RPC allows it (string or number); anything else could not be read. */
function readableId(body: unknown): RpcId | undefined {
  if (!isRecord(body)) return undefined;
  const id = body.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}

function metaOf(body: unknown): unknown {
  if (!isRecord(body) || !isRecord(body.params)) return undefined;
  return isRecord(body.params._meta) ? body.params._meta : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
