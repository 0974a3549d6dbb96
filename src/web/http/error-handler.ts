import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  DomainError,
  type ErrorCode,
  type ErrorExtras,
  errorEnvelope,
  httpStatusOf,
} from '../../kernel/errors.ts';
import { loggableError } from '../../logging.ts';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../../storage/unavailable.ts';
import { IllFormedInput } from './ill-formed.ts';

/** What a 401 says about how to authenticate (RFC 6750, RFC 9728 resource metadata). */
export function wwwAuthenticate(baseUrl: string, error?: 'invalid_token'): string {
  const parts = [`realm="cairn"`];
  if (error) parts.push(`error="${error}"`);
  parts.push(`resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp"`, `scope="mcp"`);
  return `Bearer ${parts.join(', ')}`;
}

/** Sends a catalog error as the HTTP envelope, with the headers some codes call for. */
export function sendError(
  reply: FastifyReply,
  baseUrl: string,
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  extras: ErrorExtras = {},
) {
  if (code === 'UNAUTHENTICATED') {
    // RFC 6750 §3.1: no error code when the request carried no credential at all.
    const presented = reply.request.headers.authorization !== undefined;
    reply.header('www-authenticate', wwwAuthenticate(baseUrl, presented ? 'invalid_token' : undefined));
  }
  const retry = details.retry_after_seconds;
  if (typeof retry === 'number' && Number.isFinite(retry)) reply.header('retry-after', String(retry));
  return reply
    .code(httpStatusOf(code))
    .type('application/json')
    .send(errorEnvelope(code, message, details, extras));
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** The catalog code for a 4xx status that a library (Fastify, the MCP SDK) produced. */
export function codeForStatus(status: number): ErrorCode {
  return STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST');
}

/**
 * A request that failed its zod schema, as 422 with `detail: [{loc, msg, type}]` (HTTPValidationError)
 * beside the envelope. Null when the error is not a schema failure.
 */
export function sendValidationFailure(err: FastifyError, reply: FastifyReply) {
  if (err instanceof IllFormedInput) {
    const detail = err.detail;
    return reply
      .code(422)
      .send({ detail, ...errorEnvelope('VALIDATION_FAILED', 'The request is not valid.', { detail }) });
  }
  if (!hasZodFastifySchemaValidationErrors(err)) return null;
  const where = err.validationContext ?? 'body';
  const detail = err.validation.map((v) => ({
    loc: [where, ...v.instancePath.split('/').filter(Boolean)],
    msg: v.message ?? 'invalid',
    type: v.keyword,
  }));
  return reply
    .code(422)
    .send({ detail, ...errorEnvelope('VALIDATION_FAILED', 'The request is not valid.', { detail }) });
}

/**
 * Maps every failure to the one envelope (DESIGN.md convention 2). Validation failures are 422
 * with `detail: [{loc, msg, type}]`; anything unexpected is INTERNAL with only a request id.
 */
export function installErrorHandling(app: FastifyInstance, baseUrl: string): void {
  app.setErrorHandler(envelopeErrorHandler(baseUrl));

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, baseUrl, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`, {
      path: request.url.split('?')[0],
    }),
  );
}

/** The handler installErrorHandling installs; a route scope that answers some errors its own way delegates the rest. */
export function envelopeErrorHandler(baseUrl: string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const invalid = sendValidationFailure(err, reply);
    if (invalid) return invalid;

    if (err instanceof DomainError) return sendError(reply, baseUrl, err.code, err.message, err.details, err);
    const status = err.statusCode ?? 500;
    if (status < 500) {
      const code = codeForStatus(status);
      const details =
        code === 'RATE_LIMITED' ? { retry_after_seconds: Number(reply.getHeader('retry-after')) } : {};
      return sendError(reply, baseUrl, code, err.message, details);
    }
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err: loggableError(err) }, 'database unavailable; answered 503');
      return sendError(reply, baseUrl, 'SERVICE_UNAVAILABLE', 'The database cannot be reached right now.', {
        retry_after_seconds: RETRY_AFTER_SECONDS,
      });
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, baseUrl, 'INTERNAL', 'Internal error; the operator can find it by request_id.', {
      request_id: request.id,
    });
  };
}
