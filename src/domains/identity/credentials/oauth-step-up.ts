import { type McpScope, SCOPE_MEANINGS } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import * as oauthRepo from './oauth-repo.ts';

/**
 * Step-up (issue 42 item 4): a client refused with insufficient_scope authorizes again for more
 * scopes. Every approval makes a new identity, which would leave the campaigns, grants and
 * history of the one that asked behind. So the consent page also offers the identities this
 * owner already connected through the same client (live connections only), and the owner says
 * which one the new scopes are for. The owner decides, not the request: several machines of one
 * owner share one client (a CIMD client_id is the same everywhere), so nothing in the request
 * could tell them apart.
 */

export interface ExtendableIdentity {
  agent_id: string;
  agent_name: string;
  /** The scopes its current connection holds. */
  scope: string;
  approved_at: string;
  expires_at: string;
}

/** The owner's live connections of this client, newest first: the identities a step-up may extend. */
export async function extendableIdentities(
  ex: Executor,
  ownerId: string,
  clientId: string,
  now: Date,
): Promise<ExtendableIdentity[]> {
  const rows = await oauthRepo.listGrants(ex, ownerId);
  const seen = new Set<string>();
  const out: ExtendableIdentity[] = [];
  for (const { grant: g, agentName } of rows) {
    if (g.clientId !== clientId || g.revokedAt || g.expiresAt <= now || seen.has(g.agentId)) continue;
    seen.add(g.agentId);
    out.push({
      agent_id: g.agentId,
      agent_name: agentName,
      scope: g.scope,
      approved_at: g.approvedAt.toISOString(),
      expires_at: g.expiresAt.toISOString(),
    });
  }
  return out;
}

/** The identity a decision extends, checked again inside the decision's transaction. */
export async function identityToExtend(
  ex: Executor,
  ownerId: string,
  clientId: string,
  agentId: string,
  now: Date,
): Promise<ExtendableIdentity> {
  const found = (await extendableIdentities(ex, ownerId, clientId, now)).find((i) => i.agent_id === agentId);
  if (!found) {
    throw new DomainError(
      'NOT_FOUND',
      'That identity has no live connection of this application any more; allow it as a new identity, or decline.',
      { agent_id: agentId },
    );
  }
  return found;
}

/** The requested scopes, each with what it lets the application do, for the consent page. */
export function scopeLines(scope: string): Array<{ scope: string; meaning: string }> {
  return scope
    .split(' ')
    .filter((s): s is McpScope => s in SCOPE_MEANINGS)
    .map((s) => ({ scope: s, meaning: SCOPE_MEANINGS[s] }));
}
