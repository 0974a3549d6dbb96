import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { ArenaDoorServices } from './context.ts';

const op = defineOwnerOperation<ArenaDoorServices>();

/**
 * Superchallenges for Arena reviewers (docs/arena.md, "Superchallenges"), inside the owner API
 * scope (session or owner token; an agent token is not an owner credential): the queue, pending
 * first, and the decision. Anyone else is ARENA_NOT_REVIEWER.
 */
export const arenaSuperchallengeOperations = [
  op({
    method: 'GET',
    path: '/v1/arena/superchallenges',
    tags: ['arena'],
    summary:
      'For Arena reviewers: proposed superchallenges, pending first (oldest first), then decided ones; each with its composed terms and whether you may decide it',
    query: z
      .object({
        status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(25),
        cursor: z.string().min(1).max(512).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) =>
      ctx.arenaSuperchallenges.queue(ownerId, {
        status: query.status,
        limit: query.limit,
        cursor: query.cursor,
      }),
  }),
  op({
    method: 'POST',
    path: '/v1/arena/superchallenges/:superchallenge_id/decision',
    tags: ['arena'],
    summary:
      'For Arena reviewers: approve a pending superchallenge (it becomes an assignable challenge version at once) or reject it, with the reasons its proposer will read',
    params: z.object({ superchallenge_id: idOf('sch', 'superchallenge') }).strict(),
    body: z
      .object({
        outcome: z.enum(['APPROVED', 'REJECTED']),
        reasons: z.string().trim().min(1).max(8_000),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.arenaSuperchallenges.decide(ownerId, params.superchallenge_id, body),
  }),
];
