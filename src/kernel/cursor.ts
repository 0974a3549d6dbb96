import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from './errors.ts';

/**
 * Opaque, stateless list cursors (DESIGN.md convention 9): the position is readable JSON, the
 * signature covers it together with a binding (caller, campaign, filters) that is never sent.
 * A cursor presented by anyone else, or for another query, fails the signature check.
 */

/** The longest cursor any list takes back (its position and signature fit well inside). */
export const CURSOR_MAX_CHARS = 4_096;

function sign(secret: string, binding: string, body: string): string {
  return createHmac('sha256', secret).update(`cairn-cursor-v1\n${binding}\n${body}`).digest('base64url');
}

export function signCursor(secret: string, binding: string, position: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
  return `${body}.${sign(secret, binding, body)}`;
}

/** The position inside a cursor; CURSOR_INVALID when it was altered or issued for another binding. */
export function openCursor<T extends Record<string, unknown>>(
  secret: string,
  binding: string,
  cursor: string,
): T {
  const [body, mac, extra] = cursor.split('.');
  const invalid = () =>
    new DomainError('CURSOR_INVALID', 'The cursor is not valid for this caller and query.', {});
  if (!body || !mac || extra !== undefined) throw invalid();
  const expected = Buffer.from(sign(secret, binding, body));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  try {
    const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid();
    return value as T;
  } catch {
    throw invalid();
  }
}
