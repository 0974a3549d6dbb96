import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import { LIMITS } from '../../../kernel/limits.ts';
import { answers } from '../../../web/http/openapi.ts';
import type { ConsoleContext } from './context.ts';

const tags = ['owner'];
const { min, max } = LIMITS.ownerTokenDays;

/**
 * The owner's API tokens (`/v1/owner/tokens`): made only from a signed-in console session,
 * listed and revoked with a session or a token. Inside the owner API scope, which has resolved
 * the owner (session or bearer) and accepts only JSON bodies.
 */
export async function ownerTokenApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/owner/tokens',
    {
      config: answers([201]),
      schema: {
        tags,
        summary: 'Make an owner API token (console session only); the token is in this answer once',
        body: z
          .object({
            name: z.string().min(1).max(LIMITS.ownerTokenName.maxChars),
            days: z.number().int().min(min).max(max),
          })
          .strict(),
      },
    },
    async (req, reply) => {
      if (req.ownerTokenId) {
        // A leaked token must not be able to outlive its own expiry or revocation by minting more.
        throw new DomainError(
          'CONSOLE_SESSION_REQUIRED',
          'An owner API token cannot make tokens: a stolen token could otherwise keep itself alive. Sign in to the console and make it there (or with `cairn owner token add`).',
        );
      }
      const made = await ctx.owners.tokens.create(ownerOf(req), req.body);
      return reply.code(201).send(made);
    },
  );

  r.get(
    '/v1/owner/tokens',
    { schema: { tags, summary: 'Your owner API tokens, never their secrets' } },
    async (req) => ({ tokens: await ctx.owners.tokens.list(ownerOf(req)) }),
  );

  r.post(
    '/v1/owner/tokens/:token_id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke one of your owner API tokens; the JSON body may be {}',
        params: z.object({ token_id: z.string().min(1).max(100) }).strict(),
        body: z.object({}).strict().optional(),
      },
    },
    async (req) => ctx.owners.tokens.revoke(ownerOf(req), req.params.token_id),
  );
}
