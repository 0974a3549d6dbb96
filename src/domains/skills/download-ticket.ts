import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import { contextString, parseContext, type SkillContext } from './context.ts';

/**
 * skill_package_get's download_url: an agent's runtime often fetches URLs without the MCP
 * client's bearer, so the URL carries a ticket: signed, bound to the version, the identity and
 * the context, good for ten minutes. The download checks the identity's access again when used,
 * so a grant revoked or a lease ended after the ticket was issued still stops it.
 */

export const TICKET_MINUTES = 10;

const binding = (versionId: string) => `skill-download:${versionId}`;

export function downloadUrl(
  secret: string,
  baseUrl: string,
  input: { versionId: string; agentId: string; context: SkillContext },
  now: Date,
): { url: string; expiresAt: string } {
  const expires = new Date(now.getTime() + TICKET_MINUTES * 60_000);
  const ticket = signCursor(secret, binding(input.versionId), {
    a: input.agentId,
    c: contextString(input.context),
    e: expires.getTime(),
  });
  const query = new URLSearchParams({ context: contextString(input.context), ticket });
  return {
    url: `${baseUrl}/v1/skills/versions/${input.versionId}/download?${query.toString()}`,
    expiresAt: expires.toISOString(),
  };
}

/** Who a ticket stands for and under which context; UNAUTHENTICATED when forged or expired. */
export function openTicket(
  secret: string,
  versionId: string,
  ticket: string,
  now: Date,
): { agentId: string; context: SkillContext } {
  let position: { a?: unknown; c?: unknown; e?: unknown };
  try {
    position = openCursor(secret, binding(versionId), ticket);
  } catch {
    throw refused('The download ticket is not valid for this version.');
  }
  if (typeof position.a !== 'string' || typeof position.c !== 'string' || typeof position.e !== 'number') {
    throw refused('The download ticket is not valid for this version.');
  }
  if (position.e <= now.getTime()) throw refused('The download ticket expired.');
  return { agentId: position.a, context: parseContext(position.c) };
}

function refused(message: string): DomainError {
  return new DomainError(
    'UNAUTHENTICATED',
    message,
    {},
    { next: 'Call skill_package_get again for a fresh download_url (it lasts ten minutes).' },
  );
}
