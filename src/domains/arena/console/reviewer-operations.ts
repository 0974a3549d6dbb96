import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import type { ArenaDoorServices } from './context.ts';

const op = defineOwnerOperation<ArenaDoorServices>();

/**
 * The operator's Arena reviewers in the owner API (session or owner token; docs/arena.md,
 * "Reviewers"): who reviews, and naming an owner account a reviewer or no longer. Another owner
 * gets 403 OPERATOR_REQUIRED.
 */
export const arenaReviewerOperations = [
  op({
    method: 'GET',
    path: '/v1/arena/reviewers',
    tags: ['arena'],
    summary: 'For the operator: the owner accounts that decide Arena reports, appeals and superchallenges',
    run: async (ctx, { ownerId }) => ctx.operators.arenaReviewers(ownerId),
  }),
  op({
    method: 'POST',
    path: '/v1/arena/reviewers',
    tags: ['arena'],
    summary:
      'For the operator: name an owner account (by sign-in email) an Arena reviewer, or no longer (audited on that account)',
    body: z
      .object({
        email: z.string().trim().email().max(254),
        enabled: z.boolean(),
      })
      .strict(),
    run: async (ctx, { ownerId, body }) => ctx.operators.setArenaReviewer(ownerId, body.email, body.enabled),
  }),
];
