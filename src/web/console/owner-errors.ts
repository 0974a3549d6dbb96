import type { FastifyReply } from 'fastify';
import { type ErrorCode, type ErrorExtras, errorEnvelope, httpStatusOf } from '../../kernel/errors.ts';

/**
 * What the owner's JSON routes (`/v1/…` owner operations, the live stream's refusals) share: the
 * Cairn error envelope without the MCP realm's headers, and how a bearer is read.
 */
export function sendOwnerError(
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  extras: ErrorExtras = {},
) {
  return reply
    .code(httpStatusOf(code))
    .type('application/json')
    .send(errorEnvelope(code, message, details, extras));
}

/** The token of an `Authorization: Bearer …` header, or null when the header holds none. */
export function bearerOf(authorization: string): string | null {
  return /^Bearer +(\S+)$/i.exec(authorization.trim())?.[1] ?? null;
}
