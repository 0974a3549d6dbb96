import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Agent } from '../../../framework/caller.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import type { SafeHtml } from '../../../web/console/html.ts';

/**
 * A section another area adds to an identity's console page (the Matching consent, the Arena):
 * its panel, and the forms it posts to `/console/identities/:agent_id/<suffix>`. Identity's page
 * renders the panels in catalogue order and handles each form like its own (the session and
 * CSRF check, the form, then back to the page with the change's confirmation, or the refusal
 * shown on it), so another area needs none of the page's code.
 */
export interface AgentPagePart {
  /** Its panel for this identity, or nothing (a revoked identity has no matching, say). */
  panel(v: { owner: ConsoleOwner; csrf: string; agent: Agent; path: string }): Promise<SafeHtml | ''>;
  /** Its forms. */
  changes: ReadonlyArray<AgentPageChange>;
  /** What the page says after each change, by the key its `act` answers. */
  done: Readonly<Record<string, string>>;
}

export interface AgentPageChange {
  /** Under `/console/identities/:agent_id/` (it may have path parameters of its own). */
  suffix: string;
  schema: z.ZodType;
  /** Does the change; answers the key of its confirmation. A refusal is shown on the page. */
  act(owner: ConsoleOwner, agentId: string, data: unknown, req: FastifyRequest): Promise<string>;
}

/** One change, its form's type carried through to `act`. */
export function agentPageChange<T extends z.ZodType>(
  suffix: string,
  schema: T,
  act: (owner: ConsoleOwner, agentId: string, data: z.infer<T>, req: FastifyRequest) => Promise<string>,
): AgentPageChange {
  return { suffix, schema, act: (owner, id, data, req) => act(owner, id, data as z.infer<T>, req) };
}

declare module '../../../framework/door-context.ts' {
  interface PageParts {
    /** Sections of an identity's page (identity/console/agent-parts.ts). */
    agentPage?: AgentPagePart[];
  }
}
