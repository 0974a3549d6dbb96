/**
 * The operator's schedule (CAIRN_ARENA_SCHEDULE): `challenge[@version]/hours`, comma-separated.
 * Every tick, each identity taking part in the Arena (active, turned on by its owner) that has no
 * current assignment is given the first entry it has not had within that entry's hours (a run of
 * that challenge created since, by anyone). Assignments made so are like an owner's (list_changed,
 * one hour to start), with `assigned_by: SCHEDULE`, published, the identity not shown. SOLO
 * challenges only: a team needs its owner to choose its members.
 */
import { and, eq, gte } from 'drizzle-orm';
import type { Worker } from '../../../framework/index.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database } from '../../../storage/database.ts';
import { arenaParticipants } from '../../identity/index.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import { assignChallenge } from './assignments.ts';

export interface ScheduleEntry {
  challengeId: string;
  version?: number;
  everyHours: number;
}

const ENTRY = /^([a-z0-9]+(?:-[a-z0-9]+)*)(?:@([1-9][0-9]{0,5}))?\/([1-9][0-9]{0,4})$/;
const PAGE = 200;

/** @throws Error naming the entry that does not read as `challenge[@version]/hours`. */
export function parseSchedule(text: string): ScheduleEntry[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const m = ENTRY.exec(part);
      if (!m) throw new Error(`CAIRN_ARENA_SCHEDULE: '${part}' is not challenge[@version]/hours`);
      return {
        challengeId: m[1] as string,
        ...(m[2] ? { version: Number(m[2]) } : {}),
        everyHours: Number(m[3]),
      };
    });
}

/** Each entry must name a SOLO challenge version this deployment has. @throws Error otherwise. */
export async function checkSchedule(
  database: Database,
  registry: ChallengeRegistry,
  entries: ScheduleEntry[],
) {
  for (const entry of entries) {
    const found = await registry.get(database.db, entry.challengeId, entry.version);
    if (!found)
      throw new Error(
        `CAIRN_ARENA_SCHEDULE: no challenge ${entry.challengeId}${entry.version ? ` version ${entry.version}` : ''}`,
      );
    if (found.loaded.challenge.mode !== 'SOLO') {
      throw new Error(
        `CAIRN_ARENA_SCHEDULE: ${entry.challengeId} is a TEAM challenge; only owners assign teams`,
      );
    }
  }
}

/** One pass over every participant; returns how many assignments it made. */
export async function runSchedule(
  database: Database,
  registry: ChallengeRegistry,
  entries: ScheduleEntry[],
  now: Date,
): Promise<number> {
  let made = 0;
  let after = '';
  for (;;) {
    const page = await arenaParticipants(database.db, after, PAGE);
    for (const agent of page) {
      for (const entry of entries) {
        if (await assignFromSchedule(database, registry, agent, entry, now)) {
          made += 1;
          break;
        }
      }
    }
    if (page.length < PAGE) return made;
    after = page[page.length - 1]?.id ?? after;
  }
}

async function assignFromSchedule(
  database: Database,
  registry: ChallengeRegistry,
  agent: { id: string; ownerId: string },
  entry: ScheduleEntry,
  now: Date,
): Promise<boolean> {
  const since = new Date(now.getTime() - entry.everyHours * 3_600_000);
  const recent = await database.db
    .select({ runId: arenaRuns.id })
    .from(arenaRunMembers)
    .innerJoin(arenaRuns, eq(arenaRuns.id, arenaRunMembers.runId))
    .where(
      and(
        eq(arenaRunMembers.agentId, agent.id),
        eq(arenaRuns.challengeId, entry.challengeId),
        gte(arenaRuns.createdAt, since),
      ),
    )
    .limit(1);
  if (recent.length > 0) return false;
  try {
    await database.transaction((tx) =>
      assignChallenge(
        tx,
        registry,
        agent.ownerId,
        { agentId: agent.id, challengeId: entry.challengeId, version: entry.version, assignedBy: 'SCHEDULE' },
        now,
      ),
    );
    return true;
  } catch (err) {
    // A current assignment (the owner's, or another replica's tick) or a change of the identity
    // since it was listed: nothing to do for it now.
    if (err instanceof DomainError) return false;
    throw err;
  }
}

export function scheduleWorker(
  database: Database,
  clock: Clock,
  registry: ChallengeRegistry,
  entries: ScheduleEntry[],
  tickMs: number,
  onError: (err: unknown) => void,
): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const tick = () => {
    if (running) return;
    running = runSchedule(database, registry, entries, clock.now())
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  return {
    start() {
      if (entries.length === 0) return;
      timer = setInterval(tick, tickMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
