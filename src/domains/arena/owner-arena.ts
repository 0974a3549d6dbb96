import type { Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import { setArenaActivation } from '../identity/index.ts';
import { worldSha256 } from './challenges/index.ts';
import type { ChallengeRegistry } from './challenges/registry.ts';
import { type AssignInput, assignChallenge, cancelAssignment } from './runs/assignments.ts';
import { type OwnerRunFilters, ownerRuns } from './runs/owner-runs.ts';

/**
 * The Arena for owners: the separate activation per identity (`POST /v1/agents/{id}/arena`, the
 * identity's console page), what can be assigned, and assignments (docs/arena.md).
 */
export class ArenaOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly registry: ChallengeRegistry,
    /** Signs the owner's run cursors. */
    private readonly secret: string,
  ) {}

  /** What can be assigned: every challenge version, built-ins first, by id then version. */
  async listChallenges() {
    const all = await this.registry.list();
    return {
      challenges: all.map(({ loaded: { challenge: c, sha256, worldFiles, sources }, origin }) => ({
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
        origin,
      })),
      next: 'Assign one to an identity with the Arena on: POST /v1/arena/assignments {agent_id, challenge_id, version?} (a TEAM challenge also names teammates).',
    };
  }

  assign(ownerId: string, input: AssignInput) {
    return this.database.transaction((tx) =>
      assignChallenge(tx, this.registry, ownerId, input, this.clock.now()),
    );
  }

  cancel(ownerId: string, assignmentId: string) {
    return this.database.transaction((tx) => cancelAssignment(tx, ownerId, assignmentId, this.clock.now()));
  }

  /** The owner's runs, newest first (GET /v1/arena/runs); the cursor is signed with `secret`. */
  listRuns(ownerId: string, filters: OwnerRunFilters) {
    return ownerRuns(this.database.db, this.secret, ownerId, filters);
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
        ? 'The identity may now take part in the Arena; its connected sessions were told that its tool list changed. Assign it a challenge with POST /v1/arena/assignments.'
        : 'The identity no longer takes part in the Arena; its connected sessions were told.',
    };
  }
}
