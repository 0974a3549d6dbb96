import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import type { Actor } from './access.ts';
import { skillEvents } from './tables.ts';

/**
 * A skill's activity (GET /v1/skills/versions/{id}/activity): what happened to it and who did it,
 * written in the transaction of the change.
 */
export async function recordSkillEvent(
  ex: Executor,
  event: {
    skillId: string;
    versionId?: string | null;
    kind: string;
    actor: Actor | null;
    detail?: Record<string, unknown>;
  },
  now: Date,
): Promise<void> {
  await ex.insert(skillEvents).values({
    id: newId('sev', now),
    skillId: event.skillId,
    versionId: event.versionId ?? null,
    kind: event.kind,
    actorAgentId: event.actor?.agentId ?? null,
    actorOwnerId: event.actor && event.actor.agentId === null ? event.actor.ownerId : null,
    detail: event.detail ?? {},
    createdAt: now,
  });
}
