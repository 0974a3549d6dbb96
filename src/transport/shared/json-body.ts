import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies, parsed once for every route. Prototype keys (`__proto__`, or `constructor` holding
 * `prototype`) are refused as such, naming the key, rather than as "not valid JSON" (Fastify's
 * default says that of valid JSON it refuses): the caller learns what to remove (issue 14 item 4).
 * Nothing else changes: an empty or unparseable body keeps Fastify's error codes, which /mcp
 * answers with JSON-RPC's parse error.
 */
export class PrototypeKeyRefused extends Error {
  readonly statusCode = 400;
  readonly code = 'PROTOTYPE_KEY_REFUSED';
  constructor(
    readonly key: string,
    /** The JSON-RPC id of the message, when the body is one (so /mcp can answer it). */
    readonly rpcId: string | number | null,
  ) {
    super(`The body holds the key "${key}", which is never accepted; remove it and send again.`);
    this.name = 'PrototypeKeyRefused';
  }
}

function parseError(code: 'FST_ERR_CTP_EMPTY_JSON_BODY' | 'FST_ERR_CTP_INVALID_JSON_BODY', message: string) {
  return Object.assign(new Error(message), { code, statusCode: 400 });
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) {
    throw parseError(
      'FST_ERR_CTP_EMPTY_JSON_BODY',
      "Body cannot be empty when content-type is set to 'application/json'",
    );
  }
  let refused: string | null = null;
  let value: unknown;
  try {
    // The reviver sees every key; it runs only when the text could hold one of them at all.
    const suspicious = text.includes('__proto__') || text.includes('constructor');
    value = suspicious
      ? JSON.parse(text, (key, v) => {
          if (key === '__proto__') refused ??= '__proto__';
          else if (key === 'constructor' && v !== null && typeof v === 'object' && 'prototype' in v) {
            refused ??= 'constructor.prototype';
          }
          return v;
        })
      : JSON.parse(text);
  } catch {
    throw parseError('FST_ERR_CTP_INVALID_JSON_BODY', 'Body is not valid JSON');
  }
  if (refused) {
    const id = (value as { id?: unknown } | null)?.id;
    throw new PrototypeKeyRefused(refused, typeof id === 'string' || typeof id === 'number' ? id : null);
  }
  return value;
}

export function installJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
