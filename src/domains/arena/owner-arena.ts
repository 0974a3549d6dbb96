import type { Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import { setArenaActivation } from '../identity/index.ts';
import { type LoadedChallenge, worldSha256 } from './challenges/index.ts';

/**
 * The Arena for owners: the separate activation per identity (`POST /v1/agents/{id}/arena`, the
 * identity's console page). Assignments and results come with runs (docs/arena.md).
 */
export class ArenaOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly challenges: ReadonlyArray<LoadedChallenge>,
  ) {}

  /** What can be assigned: every challenge version, newest version of each first. */
  listChallenges() {
    return {
      challenges: this.challenges.map(({ challenge: c, sha256, worldFiles, sources }) => ({
        challenge_id: c.id,
        version: c.version,
        title: c.title,
        mode: c.mode,
        ...(c.mode === 'TEAM' ? { team_size: c.team_size } : {}),
        time_limit_minutes: c.time_limit_minutes,
        allowed_tools: c.allowed_tools,
        max_score: c.verifier.rubric.reduce((n, line) => n + line.points, 0),
        rubric: c.verifier.rubric.map((line) => ({
          id: line.id,
          points: line.points,
          description: line.description,
        })),
        simulated_sources: sources.size,
        package_sha256: sha256,
        world_sha256: worldSha256(worldFiles),
        origin: 'BUILT_IN',
      })),
      next: 'Assignments come with Arena runs (docs/arena.md); turn the Arena on for an identity with POST /v1/agents/{agent_id}/arena.',
    };
  }

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
