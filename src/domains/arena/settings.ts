import { defineSettings, z } from '../../config/settings.ts';

/** The Arena's sandbox and the operator's schedule of assignments (docs/arena.md). */
export interface ArenaSettings {
  /** Sandbox programs at once (one worker thread each), and how many may wait. */
  sandboxJobs: number;
  sandboxQueue: number;
  /** `challenge[@version]/hours`, comma-separated; empty for none. */
  arenaSchedule: string;
  /** How often the schedule is looked at, in seconds. */
  arenaScheduleTickSeconds: number;
}

export const arenaSettings = defineSettings({
  env: {
    CAIRN_SANDBOX_JOBS: z.coerce.number().int().min(1).max(16).default(2),
    CAIRN_SANDBOX_QUEUE: z.coerce.number().int().min(0).max(1_000).default(8),
    CAIRN_ARENA_SCHEDULE: z.string().max(2_000).default(''),
    CAIRN_ARENA_SCHEDULE_TICK_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  },
  read: (e) => ({
    sandboxJobs: e.CAIRN_SANDBOX_JOBS,
    sandboxQueue: e.CAIRN_SANDBOX_QUEUE,
    arenaSchedule: e.CAIRN_ARENA_SCHEDULE,
    arenaScheduleTickSeconds: e.CAIRN_ARENA_SCHEDULE_TICK_SECONDS,
  }),
});
