import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { IDENTITY_LIMITS } from '../credentials/limits.ts';
import type { IdentityDoorServices } from './context.ts';

const op = defineOwnerOperation<IdentityDoorServices>();
const tags = ['owner'];
const { min, max } = IDENTITY_LIMITS.ownerTokenDays;

/**
 * The owner's API tokens (`/v1/owner/tokens`): made only from a signed-in console session,
 * listed and revoked with a session or a token.
 */
export const ownerTokenOperations = [
  op({
    method: 'POST',
    path: '/v1/owner/tokens',
    tags,
    summary: 'Make an owner API token (console session only); the token is in this answer once',
    status: 201,
    body: z
      .object({
        name: z.string().min(1).max(IDENTITY_LIMITS.ownerTokenName.maxChars),
        days: z.number().int().min(min).max(max),
      })
      .strict(),
    run(ctx, { ownerId, by, body }) {
      if (by === 'TOKEN') {
        // A leaked token must not be able to outlive its own expiry or revocation by minting more.
        throw new DomainError(
          'CONSOLE_SESSION_REQUIRED',
          'An owner API token cannot make tokens: a stolen token could otherwise keep itself alive. Sign in to the console and make it there (or with `cairn owner token add`).',
        );
      }
      return ctx.owners.tokens.create(ownerId, body);
    },
  }),
  op({
    method: 'GET',
    path: '/v1/owner/tokens',
    tags,
    summary: 'Your owner API tokens, never their secrets',
    run: async (ctx, { ownerId }) => ({ tokens: await ctx.owners.tokens.list(ownerId) }),
  }),
  op({
    method: 'POST',
    path: '/v1/owner/tokens/:token_id/revoke',
    tags,
    summary: 'Revoke one of your owner API tokens; the JSON body may be {}',
    params: z.object({ token_id: z.string().min(1).max(100) }).strict(),
    body: z.object({}).strict().optional(),
    run: (ctx, { ownerId, params }) => ctx.owners.tokens.revoke(ownerId, params.token_id),
  }),
];
