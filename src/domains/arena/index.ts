import type { Area } from '../../framework/index.ts';
import { Sandbox } from '../../sandbox/index.ts';
import { jobFailureLevel } from '../../storage/unavailable.ts';
import { arenaAppeal, arenaReport, arenaReports } from './cases/case-tools.ts';
import { PUBLISHED_CASE_LIMITS } from './cases/limits.ts';
import { ArenaReviewService } from './cases/review.ts';
import { builtinChallenges } from './challenges/index.ts';
import { ChallengeRegistry } from './challenges/registry.ts';
import { arenaCli } from './cli.ts';
import { arenaDoors } from './console/doors.ts';
import { ARENA_ERRORS } from './errors.ts';
import { ArenaKeys, KeyChurnError } from './keys.ts';
import { ArenaOwnerService } from './owner-arena.ts';
import { PUBLISHED_PUBLICATION_LIMITS } from './publications/limits.ts';
import { arenaPublicationReview, arenaPublicationsTool } from './publications/publication-tools.ts';
import { expirySweeper } from './runs/ending.ts';
import { PUBLISHED_RUN_LIMITS } from './runs/limits.ts';
import { ArenaRuns } from './runs/run-service.ts';
import { arenaStart, artifactSubmit, messageAppendRun, resultVerifyRun } from './runs/run-tools.ts';
import { checkSchedule, parseSchedule, scheduleWorker } from './runs/schedule.ts';
import {
  labFetchTool,
  labSearchTool,
  labTableTool,
  sandboxExec,
  workspaceDelete,
  workspaceDiff,
  workspaceList,
  workspaceRead,
  workspaceThread,
  workspaceWrite,
} from './runs/workspace-tools.ts';
import { ArenaScores } from './scores/score-service.ts';
import { type ArenaSettings, arenaSettings } from './settings.ts';
import { PUBLISHED_SUPERCHALLENGE_LIMITS } from './superchallenges/present.ts';
import { SuperchallengeReviewService } from './superchallenges/review.ts';
import { superchallengeCreate } from './superchallenges/tools.ts';
import * as tables from './tables.ts';

/**
 * The arena (docs/arena.md): the owner's separate activation per identity, challenge packages
 * (built-in and operator-added), assignments and runs with their isolated workspace, sandbox and
 * lab, verification, and signed scores (the deployment's Ed25519 keys, sealed, shared by
 * replicas, published as a JWKS).
 */

export { ArenaReviewService } from './cases/review.ts';
export {
  builtinChallenges,
  loadChallengeDir,
  packageSha256,
  readChallengeDir,
  worldSha256,
} from './challenges/index.ts';
export { ChallengeRegistry } from './challenges/registry.ts';
export {
  type ArenaCaller,
  type ArenaStanding,
  arenaReviewStanding,
  arenaRunStanding,
  arenaRunTaken,
} from './contexts.ts';
export { scoreSignatureInvalid } from './errors.ts';
export { ArenaKeys, type PublishedJwk } from './keys.ts';
export { ArenaOwnerService } from './owner-arena.ts';
export { assignmentOutput } from './runs/outputs.ts';
export { ArenaRuns } from './runs/run-service.ts';
export { canonicalScore, type SignedScorePayload, signedScorePayload } from './scores/payload.ts';
export { ArenaScores } from './scores/score-service.ts';
export { MAX_SIGNED_SCORE_CHARS, SCORE_JWS_TYPE, verifyScore } from './scores/signing.ts';
export { SuperchallengeReviewService } from './superchallenges/review.ts';

export const arenaArea = {
  name: 'arena',
  settings: arenaSettings,
  cli: arenaCli,
  doors: arenaDoors,
  tables,
  errors: ARENA_ERRORS,
  limits: [
    ...PUBLISHED_RUN_LIMITS,
    ...PUBLISHED_CASE_LIMITS,
    ...PUBLISHED_PUBLICATION_LIMITS,
    ...PUBLISHED_SUPERCHALLENGE_LIMITS,
  ],
  operations: [
    arenaStart,
    artifactSubmit,
    resultVerifyRun,
    messageAppendRun,
    labSearchTool,
    labFetchTool,
    labTableTool,
    workspaceList,
    workspaceRead,
    workspaceWrite,
    workspaceDelete,
    workspaceDiff,
    workspaceThread,
    sandboxExec,
    arenaReport,
    arenaReports,
    arenaAppeal,
    arenaPublicationsTool,
    arenaPublicationReview,
    superchallengeCreate,
  ],
  async start({ database, clock, secret, logger, config }) {
    // The shipped exercises, validated now: an invalid built-in stops the start, not a run.
    const challenges = await builtinChallenges();
    const keys = new ArenaKeys(database, clock, secret, (kid) =>
      logger.warn(
        { kid },
        'the active arena signing key could not be unsealed (did the server secret change?); it is retired, still published, and a new one signs from now on',
      ),
    );
    // Made (or checked) now, so the first signature and the JWKS need no key generation. Replicas
    // with different secrets replacing each other's key do not stop the start: signing says so.
    await keys.active().catch((err) => {
      if (!(err instanceof KeyChurnError)) throw err;
      logger.error({ err: err.message }, 'no arena signing key could be kept');
    });
    const registry = new ChallengeRegistry(database, challenges);
    // The operator's schedule, checked now: a misspelt entry stops the start, not a tick.
    const schedule = parseSchedule(config.arenaSchedule);
    await checkSchedule(database, registry, schedule);
    const sandbox = new Sandbox({ maxJobs: config.sandboxJobs, maxWaiting: config.sandboxQueue });
    const arenaScores = new ArenaScores(keys);
    return {
      services: {
        arenaScores,
        arena: new ArenaOwnerService(database, clock, registry, secret),
        arenaReview: new ArenaReviewService(database, clock),
        arenaSuperchallenges: new SuperchallengeReviewService(database, clock, registry, secret),
        arenaRuns: new ArenaRuns(database, clock, registry, sandbox, arenaScores, secret),
      },
      workers: [
        expirySweeper(database, clock, (err) =>
          logger[jobFailureLevel(err)]({ err }, 'arena expiry sweep failed; it runs again in 30 seconds'),
        ),
        scheduleWorker(database, clock, registry, schedule, config.arenaScheduleTickSeconds * 1000, (err) =>
          logger[jobFailureLevel(err)]({ err }, 'arena schedule failed; it runs again on its next tick'),
        ),
        { start() {}, stop: () => sandbox.close() },
      ],
    };
  },
} satisfies Area;

type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** runs. */
    arun: 'arena';
    /** assignments. */
    asg: 'arena';
    /** artifacts. */
    art: 'arena';
    /** run thread messages. */
    amsg: 'arena';
    /** cases. */
    case: 'arena';
    /** publications. */
    pub: 'arena';
    /** publication reviews. */
    prv: 'arena';
    /** superchallenges. */
    sch: 'arena';
  }
}

/** Its settings, joined into Config (config/settings.ts). */
declare module '../../config/settings.ts' {
  interface AreaSettings extends ArenaSettings {}
}
