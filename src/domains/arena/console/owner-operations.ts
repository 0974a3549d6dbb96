import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { ArenaDoorServices } from './context.ts';

/** The run states, as `GET /v1/arena/runs?state=` takes them (docs/arena.md). */
const RUN_STATES = ['ASSIGNED', 'RUNNING', 'SUBMITTED', 'VERIFIED', 'EXPIRED', 'CANCELLED'] as const;

const op = defineOwnerOperation<ArenaDoorServices>();

/**
 * The Arena for owners (docs/arena.md), inside the owner API scope (session or owner token):
 * the separate activation per identity (another owner's identity is NOT_FOUND), the
 * challenges that can be assigned, assignments, and the owner's runs.
 */
export const arenaOperations = [
  op({
    method: 'GET',
    path: '/v1/arena/challenges',
    tags: ['arena'],
    summary: 'The challenge versions this deployment can assign: terms, rubric, package and world hashes',
    run: async (ctx, { ownerId }) => {
      ownerId;
      return ctx.arena.listChallenges();
    },
  }),
  op({
    method: 'GET',
    path: '/v1/arena/runs',
    tags: ['arena'],
    summary:
      'Your Arena runs, newest first (signed cursor): members, state, times, score and signed score, and what you may do next',
    query: z
      .object({
        agent_id: idOf('agt', 'agent').optional(),
        state: z.enum(RUN_STATES).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(25),
        cursor: z.string().min(1).max(512).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) => {
      const q = query;
      return ctx.arena.listRuns(ownerId, {
        agentId: q.agent_id,
        state: q.state,
        limit: q.limit,
        cursor: q.cursor,
      });
    },
  }),
  op({
    method: 'GET',
    path: '/v1/arena/cases',
    tags: ['arena'],
    summary:
      'For Arena reviewers: the open reports and appeals, oldest first (after: the last case_id of the previous page)',
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).default(25),
        after: idOf('case', 'case').optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) =>
      ctx.arenaReview.queue(ownerId, { limit: query.limit, after: query.after }),
  }),
  op({
    method: 'POST',
    path: '/v1/arena/cases/:case_id/decision',
    tags: ['arena'],
    summary:
      'For Arena reviewers: decide an open report or appeal (UPHELD or DISMISSED) with the reasons the filer will read; an appeal needs another reviewer than the first decision',
    params: z.object({ case_id: idOf('case', 'case') }).strict(),
    body: z
      .object({
        outcome: z.enum(['UPHELD', 'DISMISSED']),
        reasons: z.string().trim().min(1).max(8_000),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) => ctx.arenaReview.decide(ownerId, params.case_id, body),
  }),
  op({
    method: 'DELETE',
    path: '/v1/arena/assignments/:assignment_id',
    tags: ['arena'],
    summary: 'Cancel an assignment of yours and its run (for every member); its world is destroyed',
    params: z.object({ assignment_id: idOf('asg', 'assignment') }).strict(),
    run: async (ctx, { ownerId, params }) => ctx.arena.cancel(ownerId, params.assignment_id),
  }),
  op({
    method: 'POST',
    path: '/v1/agents/:agent_id/arena',
    tags: ['arena'],
    summary:
      'Let one of your identities take part in the Arena, or stop it (apart from READ and campaigns); its sessions get notifications/tools/list_changed',
    params: z.object({ agent_id: idOf('agt', 'agent') }).strict(),
    body: z.object({ enabled: z.boolean() }).strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.arena.setActivation(ownerId, params.agent_id, body.enabled),
  }),
  op({
    method: 'POST',
    path: '/v1/arena/assignments',
    tags: ['arena'],
    summary:
      'Assign a challenge version to one of your identities with the Arena on (a TEAM challenge: with teammates); its sessions get notifications/tools/list_changed, and it expires unstarted after one hour',
    body: z
      .object({
        agent_id: idOf('agt', 'agent'),
        challenge_id: z.string().min(1).max(64),
        version: z.number().int().min(1).max(1_000_000).optional(),
        teammates: z.array(idOf('agt', 'agent')).max(3).optional(),
        publish: z.boolean().optional(),
        show_agent: z.boolean().optional(),
      })
      .strict(),
    status: 201,
    run: async (ctx, { ownerId, body }) => {
      const b = body;
      const assigned = await ctx.arena.assign(ownerId, {
        agentId: b.agent_id,
        challengeId: b.challenge_id,
        version: b.version,
        teammates: b.teammates,
        publish: b.publish,
        showAgent: b.show_agent,
      });
      return assigned;
    },
  }),
];
