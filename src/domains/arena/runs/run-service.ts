import type { Clock } from '../../../kernel/clock.ts';
import type { Sandbox } from '../../../sandbox/index.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import type { ArenaScores } from '../scores/score-service.ts';
import { openRun } from './access.ts';
import type { RunTool } from './policy.ts';
import { publishedResults } from './results.ts';
import { currentAssignment } from './start.ts';

/**
 * What the run tools share (`ctx.services.arenaRuns`): the challenge registry, the sandbox pool,
 * the signer, and the database for the tools that keep their own transactions.
 */
export class ArenaRuns {
  constructor(
    readonly database: Database,
    readonly clock: Clock,
    readonly registry: ChallengeRegistry,
    readonly sandbox: Sandbox,
    readonly scores: ArenaScores,
    /** Signs the cursors of run-scoped lists (results, cases). */
    readonly secret: string,
  ) {}

  open(ex: Executor, agentId: string, runId: string, tool: RunTool | 'workspace.thread', lock = false) {
    return openRun(ex, this.registry, agentId, runId, this.clock.now(), tool, lock);
  }

  /** The published results page (GET /v1/public/arena/results). */
  results(input: { challengeId?: string | undefined; limit: number; cursor?: string | undefined }) {
    return publishedResults(this.database.db, this.secret, input);
  }

  /** capabilities_describe's `arena_assignment` (null when there is none). */
  assignmentOf(ex: Executor, agentId: string) {
    return currentAssignment(ex, agentId, this.clock.now());
  }
}
