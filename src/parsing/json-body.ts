import { BASE64_MESSAGE, BASE64_PATTERN, type PayloadFields } from '../kernel/base64.ts';
import { illFormedStrings, type ValidationDetail } from '../kernel/validation.ts';

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

/** A large body's payload field that fails its check: the route answers 422 with `detail`. */
export class BodyFieldRefused extends Error {
  constructor(readonly detail: ValidationDetail[]) {
    super(`${detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')}.`);
    this.name = 'BodyFieldRefused';
  }
}

type BodyErrorCode = 'FST_ERR_CTP_EMPTY_JSON_BODY' | 'FST_ERR_CTP_INVALID_JSON_BODY';

const MESSAGES: Record<BodyErrorCode, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: "Body cannot be empty when content-type is set to 'application/json'",
  FST_ERR_CTP_INVALID_JSON_BODY: 'Body is not valid JSON',
};

/** Fastify's own error for an empty or unparseable JSON body (same code, same status). */
export function bodyParseError(code: BodyErrorCode): Error {
  return Object.assign(new Error(MESSAGES[code]), { code, statusCode: 400 });
}

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw bodyParseError('FST_ERR_CTP_EMPTY_JSON_BODY');
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
    throw bodyParseError('FST_ERR_CTP_INVALID_JSON_BODY');
  }
  if (refused) {
    const id = (value as { id?: unknown } | null)?.id;
    throw new PrototypeKeyRefused(refused, typeof id === 'string' || typeof id === 'number' ? id : null);
  }
  return value;
}

/** A large JSON body to read in a parser thread, and how to read its payload fields. */
export interface BodyInput {
  bytes: Uint8Array;
  fields: PayloadFields;
}

/**
 * What a large body reads as, as plain data across the thread boundary: the value (its payload
 * fields as bytes), or why not: Fastify's body error, a prototype key, or a payload field that
 * fails its check (answered 422 like every validation failure).
 */
export type BodyOutcome =
  | { ok: true; value: unknown }
  | { ok: false; kind: 'syntax'; code: BodyErrorCode }
  | { ok: false; kind: 'prototype'; key: string; rpcId: string | number | null }
  | { ok: false; kind: 'field'; detail: ValidationDetail[] };

const utf8 = new TextDecoder();

/**
 * The bytes of a string in shared memory: the main thread receives them without a copy (copying
 * megabytes there holds its event loop tens of milliseconds on a small machine).
 */
function sharedBytes(value: string, encoding: 'base64' | 'utf8'): Buffer {
  const out = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(value, encoding)));
  out.write(value, encoding);
  return out;
}

/**
 * Reads a large JSON body (runs in a parser thread, job `body`; the body may be in shared
 * memory): parses it, checks each payload field and replaces it by its bytes (base64 decoded;
 * text as UTF-8), in shared memory. A field that is absent or not a string is left for the
 * route's schema to refuse, in the words it always uses.
 */
export function decodeJsonBody(input: BodyInput): BodyOutcome {
  let value: unknown;
  try {
    value = parseJsonBody(utf8.decode(input.bytes));
  } catch (err) {
    if (err instanceof PrototypeKeyRefused)
      return { ok: false, kind: 'prototype', key: err.key, rpcId: err.rpcId };
    return { ok: false, kind: 'syntax', code: (err as { code: BodyErrorCode }).code };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: true, value };
  const body = value as Record<string, unknown>;
  const detail: ValidationDetail[] = [];
  for (const field of input.fields.base64 ?? []) {
    const v = body[field];
    if (typeof v !== 'string') continue;
    if (!BASE64_PATTERN.test(v)) {
      detail.push({ loc: ['body', field], msg: BASE64_MESSAGE, type: 'custom' });
      continue;
    }
    body[field] = sharedBytes(v, 'base64');
  }
  for (const field of input.fields.text ?? []) {
    const v = body[field];
    if (typeof v !== 'string') continue;
    const problems = illFormedStrings(v, 'body').map((p) => ({ ...p, loc: ['body', field] }));
    if (problems.length > 0) {
      detail.push(...problems);
      continue;
    }
    body[field] = sharedBytes(v, 'utf8');
  }
  return detail.length > 0 ? { ok: false, kind: 'field', detail } : { ok: true, value: body };
}
