import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../kernel/errors.ts';
import type { PayloadFields } from '../../kernel/payload.ts';
import { withTenant } from '../../kernel/tenant.ts';
import { degradedOf } from '../../parsing/busy.ts';
import { BodyFieldRefused, ParseRefusal, ParserBusy } from '../../parsing/index.ts';
import { IllFormedInput } from './ill-formed.ts';
import { parseJsonBody } from './json-body.ts';
import { BODY_LIMITS } from './limits.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why this large body is refused (the gate was full); answered once the body has been read. */
    largeBodyRefused?: DomainError;
  }
  interface FastifyContextConfig {
    /**
     * The route takes a large JSON body (a file as base64 or text): over LARGE_BODY_BYTES it is
     * decoded in a parser thread, and these fields reach the route as bytes.
     */
    payload?: PayloadFields;
  }
}

/**
 * Large bodies keep the event loop free (issue 40 item 3). Parsing 12 MB of JSON, checking and
 * decoding its base64 takes ~150 ms of one thread; four such requests at once held `/health`
 * for seconds. On a route that declares payload fields, a body over the ordinary request limit
 * is therefore read in the parser pool (in its sender's fair share), and each principal may
 * have only a few such bodies in flight at once, the instance a few more, so the memory and the
 * threads they take stay bounded whoever sends them.
 */

/** Bodies above this are large: the ordinary request limit, which only payload routes exceed. */
export const LARGE_BODY_BYTES = BODY_LIMITS.requestBodyBytes;
/** Large bodies in flight at once, per principal (an owner; else the address). */
export const LARGE_BODIES_PER_PRINCIPAL = BODY_LIMITS.largeBodies.perPrincipal;
/** Large bodies in flight at once in this process. */
export const LARGE_BODIES_PER_INSTANCE = BODY_LIMITS.largeBodies.perProcess;
const RETRY_AFTER_SECONDS = 5;

/** What decodes a large body off the main thread (the parser pool is one). */
export interface BodyDecoder {
  decodeJsonBody(bytes: Uint8Array, fields: PayloadFields): Promise<unknown>;
}

/** Counts large bodies in flight, per principal and in all (per process: it guards this process's memory). */
class LargeBodyGate {
  private total = 0;
  private readonly byPrincipal = new Map<string, number>();

  /** Takes a place, or says whose limit is reached. */
  enter(principal: string): 'OK' | 'PRINCIPAL' | 'INSTANCE' {
    const mine = this.byPrincipal.get(principal) ?? 0;
    if (mine >= LARGE_BODIES_PER_PRINCIPAL) return 'PRINCIPAL';
    if (this.total >= LARGE_BODIES_PER_INSTANCE) return 'INSTANCE';
    this.byPrincipal.set(principal, mine + 1);
    this.total++;
    return 'OK';
  }

  leave(principal: string): void {
    const mine = (this.byPrincipal.get(principal) ?? 1) - 1;
    if (mine > 0) this.byPrincipal.set(principal, mine);
    else this.byPrincipal.delete(principal);
    this.total--;
  }
}

/** Whether the request's body is large, or may be (a chunked body of no stated length). */
function isLarge(req: FastifyRequest): boolean {
  const stated = req.headers['content-length'];
  if (stated === undefined) return req.headers['transfer-encoding'] !== undefined;
  const length = Number(stated);
  return !Number.isFinite(length) || length > LARGE_BODY_BYTES;
}

/**
 * Installs the rule in a route scope: the gate before a large body is read, and the JSON parser
 * that sends it to a thread. `principalOf` names whose request it is (resolved before the body,
 * in onRequest); null falls back to the client's address.
 */
export function installLargeBodies(
  scope: FastifyInstance,
  decoder: BodyDecoder,
  principalOf: (req: FastifyRequest) => string | null,
): void {
  const gate = new LargeBodyGate();
  const who = (req: FastifyRequest) => principalOf(req) ?? `address:${req.ip}`;

  scope.addHook('preParsing', async (req, reply, payload) => {
    if (!req.routeOptions.config.payload || !isLarge(req)) return payload;
    const principal = who(req);
    const verdict = gate.enter(principal);
    if (verdict !== 'OK') {
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      // Answered after the body is read and dropped, not at once: a client still sending would
      // meet a closed connection (EPIPE) and never see the refusal and when to retry.
      req.largeBodyRefused =
        verdict === 'PRINCIPAL'
          ? new DomainError(
              'RATE_LIMITED',
              `You have ${LARGE_BODIES_PER_PRINCIPAL} large uploads in progress already; send this one once one of them is answered.`,
              {
                reason: 'LARGE_BODIES_IN_FLIGHT',
                max_in_flight: LARGE_BODIES_PER_PRINCIPAL,
                retry_after_seconds: RETRY_AFTER_SECONDS,
              },
              { next: 'Wait for an answer to one of your uploads in progress, then send this one again.' },
            )
          : new DomainError(
              'DEGRADED_MODE',
              'The server is receiving as many large uploads as it takes at once; retry shortly.',
              { share: 'INSTANCE', retry_after_seconds: RETRY_AFTER_SECONDS },
            );
      return payload;
    }
    // The place is given back however the exchange ends: answered, refused or cut off.
    reply.raw.once('close', () => gate.leave(principal));
    return payload;
  });

  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', async (req: FastifyRequest, payload: Readable) => {
    const fields = req.routeOptions.config.payload;
    if (req.largeBodyRefused) {
      await drain(req, payload, req.routeOptions.bodyLimit);
      throw req.largeBodyRefused;
    }
    const body = await readBody(req, payload, req.routeOptions.bodyLimit, fields !== undefined);
    if (!fields || body.length <= LARGE_BODY_BYTES) return parseJsonBody(body.toString('utf8'));
    try {
      return await withTenant(who(req), () => decoder.decodeJsonBody(body, fields));
    } catch (err) {
      throw asBodyError(err);
    }
  });
}

/** Fastify's own errors for a body over its limit or of another length than it said. */
const tooLarge = () =>
  Object.assign(new Error('Request body is too large'), {
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    statusCode: 413,
  });
const wrongLength = () =>
  Object.assign(new Error('Request body size did not match Content-Length'), {
    code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
    statusCode: 400,
  });

/** Reads a refused body to its end and drops it, within the route's limit as any body. */
async function drain(req: FastifyRequest, payload: Readable, limit: number): Promise<void> {
  const stated = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
  if (stated !== null && stated > limit) throw tooLarge();
  let received = 0;
  for await (const chunk of payload as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limit) {
      payload.destroy();
      throw tooLarge();
    }
  }
}

/**
 * Reads a body under its route's limit. A large one of stated length (what clients send) goes
 * straight into shared memory, chunk by chunk as it arrives, so the copy is spread over the
 * upload and a parser thread reads it without another (joining 12 MB at the end held the loop
 * ~40 ms here); anything else is gathered and joined.
 */
async function readBody(
  req: FastifyRequest,
  payload: Readable,
  limit: number,
  mayBeLarge: boolean,
): Promise<Buffer> {
  const stated = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
  if (stated !== null && stated > limit) throw tooLarge();
  const shared =
    mayBeLarge && stated !== null && stated > LARGE_BODY_BYTES
      ? Buffer.from(new SharedArrayBuffer(stated))
      : null;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of payload as AsyncIterable<Buffer>) {
    if (received + chunk.length > (stated ?? limit)) {
      payload.destroy();
      throw stated === null ? tooLarge() : wrongLength();
    }
    if (shared) chunk.copy(shared, received);
    else chunks.push(chunk);
    received += chunk.length;
  }
  if (stated !== null && received !== stated) throw wrongLength();
  return shared ?? Buffer.concat(chunks, received);
}

/** A large body's failure in the words of the scope's error handler. */
function asBodyError(err: unknown): unknown {
  if (err instanceof BodyFieldRefused) return new IllFormedInput(err.detail);
  if (err instanceof ParserBusy) return degradedOf(err);
  if (err instanceof ParseRefusal) {
    return err.reason === 'PARSE_TIMEOUT'
      ? new DomainError('DOCUMENT_TOO_COMPLEX', 'The body took too long to read.', { reason: err.reason })
      : new DomainError('VALIDATION_FAILED', 'The body could not be read as JSON.', { reason: err.reason });
  }
  return err;
}
