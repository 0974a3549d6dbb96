import type { Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import { setArenaActivation } from '../identity/index.ts';

/**
 * The Arena for owners: the separate activation per identity (`POST /v1/agents/{id}/arena`, the
 * identity's console page). Assignments and results come with runs (docs/arena.md).
 */
export class ArenaOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async setActivation(ownerId: string, agentId: string, enabled: boolean) {
    const { agent, changed } = await this.database.transaction((tx) =>
      setArenaActivation(tx, ownerId, agentId, enabled, this.clock.now()),
    );
    return {
      agent_id: agent.id,
      arena: { enabled: agent.arenaEnabled },
      changed,
      next: enabled
        ? 'The identity may now take part in the Arena; its connected sessions were told that its tool list changed.'
        : 'The identity no longer takes part in the Arena; its connected sessions were told.',
    };
  }
}
