import type { FastifyRequest } from 'fastify';
import type { Authenticated, IdentityService } from '../../domains/identity/index.ts';

import { DomainError } from '../../kernel/errors.ts';

/** Longest bearer value we bother hashing; anything longer is not one of ours. */
const MAX_BEARER_CHARS = 512;

/**
 * Resolves `Authorization: Bearer …` to a caller; every credential failure is UNAUTHENTICATED.
 * With a session id, also says whether it is the caller's open session.
 */
export async function authenticateRequest(
  request: FastifyRequest,
  identity: IdentityService,
  sessionId: string | null = null,
): Promise<Authenticated> {
  return identity.authenticate(bearerToken(request), sessionId);
}

/** The bearer value of `Authorization: Bearer …`; UNAUTHENTICATED when there is none. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) {
    throw new DomainError(
      'UNAUTHENTICATED',
      'Send Authorization: Bearer <PROJECT_KEY> (or an access token).',
    );
  }
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || match[1].length > MAX_BEARER_CHARS) {
    throw new DomainError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>".');
  }
  return match[1];
}
