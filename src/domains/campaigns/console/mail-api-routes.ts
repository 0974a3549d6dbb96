import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idOf } from '../../../web/console/id-params.ts';
import type { ConsoleContext } from './context.ts';

const tags = ['mail'];
const campaignId = idOf('cmp', 'campaign');
const mailId = idOf('mail', 'mail');
/** Mails one deletion names, at most (MailService.deleteMessages refuses more as well). */
const MAX_DELETE = 100;

/**
 * A campaign's mailbox for its owner of record (docs/mail.md): the address, delivery state and
 * attempts, the stored mail and its deletion (making room), and the agents' access requests with
 * their decision and revocation. Inside the owner
 * API scope (session or owner token, JSON bodies only); another owner's campaign is NOT_FOUND.
 */
export async function mailApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/campaigns/:campaign_id/mail',
    {
      schema: {
        tags,
        summary: "The campaign's receiving address, delivery state, usage, delivery attempts and access",
        params: z.object({ campaign_id: campaignId }).strict(),
      },
    },
    async (req) => ctx.mail.mailbox(ownerOf(req), req.params.campaign_id),
  );

  r.get(
    '/v1/campaigns/:campaign_id/mail/access-requests',
    {
      schema: {
        tags,
        summary: "Agents' requests to read the campaign's mail, pending first",
        params: z.object({ campaign_id: campaignId }).strict(),
      },
    },
    async (req) => ctx.mail.accessRequests(ownerOf(req), req.params.campaign_id),
  );

  r.post(
    '/v1/campaigns/:campaign_id/mail/access-requests/:request_id/decision',
    {
      schema: {
        tags,
        summary: 'Approve or decline an agent’s request to read the campaign’s mail',
        params: z
          .object({ campaign_id: campaignId, request_id: idOf('mar', 'mail access request') })
          .strict(),
        body: z.object({ decision: z.enum(['APPROVE', 'DECLINE']) }).strict(),
      },
    },
    async (req) =>
      ctx.mail.decide(ownerOf(req), req.params.campaign_id, req.params.request_id, req.body.decision),
  );

  r.post(
    '/v1/campaigns/:campaign_id/mail/grants/:agent_id/revoke',
    {
      schema: {
        tags,
        summary: "Revoke an agent's access to the campaign's mail at once; the JSON body may be {}",
        params: z.object({ campaign_id: campaignId, agent_id: idOf('agt', 'agent') }).strict(),
        body: z.object({}).strict().optional(),
      },
    },
    async (req) => ctx.mail.revoke(ownerOf(req), req.params.campaign_id, req.params.agent_id),
  );

  r.get(
    '/v1/campaigns/:campaign_id/mail/messages',
    {
      schema: {
        tags,
        summary:
          'The mail the mailbox holds, newest first (headers, size, attachments, flags, evidence made of it), to choose what to delete',
        params: z.object({ campaign_id: campaignId }).strict(),
        querystring: z
          .object({
            before: mailId.optional(),
            limit: z.coerce.number().int().min(1).max(100).default(50),
          })
          .strict(),
      },
    },
    async (req) =>
      ctx.mail.messages(ownerOf(req), req.params.campaign_id, {
        ...(req.query.before ? { before: req.query.before } : {}),
        limit: req.query.limit,
      }),
  );

  r.post(
    '/v1/campaigns/:campaign_id/mail/messages/delete',
    {
      schema: {
        tags,
        summary:
          'Delete stored mail to make room (all or nothing; evidence made from a mail stays); answers the usage after',
        params: z.object({ campaign_id: campaignId }).strict(),
        body: z.object({ mail_ids: z.array(mailId).min(1).max(MAX_DELETE) }).strict(),
      },
    },
    async (req) => ctx.mail.deleteMessages(ownerOf(req), req.params.campaign_id, req.body.mail_ids),
  );
}
