import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { MailDoorServices } from './context.ts';

const tags = ['mail'];
const campaignId = idOf('cmp', 'campaign');
const mailId = idOf('mail', 'mail');
/** Mails one deletion names, at most (MailService.deleteMessages refuses more as well). */
const MAX_DELETE = 100;

const op = defineOwnerOperation<MailDoorServices>();

/**
 * A campaign's mailbox for its owner of record (docs/mail.md): the address, delivery state and
 * attempts, the stored mail and its deletion (making room), and the agents' access requests with
 * their decision and revocation. Inside the owner
 * API scope (session or owner token, JSON bodies only); another owner's campaign is NOT_FOUND.
 */
export const mailOperations = [
  op({
    method: 'GET',
    path: '/v1/campaigns/:campaign_id/mail',
    tags,
    summary: "The campaign's receiving address, delivery state, usage, delivery attempts and access",
    params: z.object({ campaign_id: campaignId }).strict(),
    run: async (ctx, { ownerId, params }) => ctx.mail.mailbox(ownerId, params.campaign_id),
  }),
  op({
    method: 'GET',
    path: '/v1/campaigns/:campaign_id/mail/access-requests',
    tags,
    summary: "Agents' requests to read the campaign's mail, pending first",
    params: z.object({ campaign_id: campaignId }).strict(),
    run: async (ctx, { ownerId, params }) => ctx.mail.accessRequests(ownerId, params.campaign_id),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/mail/access-requests/:request_id/decision',
    tags,
    summary: 'Approve or decline an agent’s request to read the campaign’s mail',
    params: z.object({ campaign_id: campaignId, request_id: idOf('mar', 'mail access request') }).strict(),
    body: z.object({ decision: z.enum(['APPROVE', 'DECLINE']) }).strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.mail.decide(ownerId, params.campaign_id, params.request_id, body.decision),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/mail/grants/:agent_id/revoke',
    tags,
    summary: "Revoke an agent's access to the campaign's mail at once; the JSON body may be {}",
    params: z.object({ campaign_id: campaignId, agent_id: idOf('agt', 'agent') }).strict(),
    body: z.object({}).strict().optional(),
    run: async (ctx, { ownerId, params }) => ctx.mail.revoke(ownerId, params.campaign_id, params.agent_id),
  }),
  op({
    method: 'GET',
    path: '/v1/campaigns/:campaign_id/mail/messages',
    tags,
    summary:
      'The mail the mailbox holds, newest first (headers, size, attachments, flags, evidence made of it), to choose what to delete',
    params: z.object({ campaign_id: campaignId }).strict(),
    query: z
      .object({
        before: mailId.optional(),
        limit: z.coerce.number().int().min(1).max(100).default(50),
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.mail.messages(ownerId, params.campaign_id, {
        ...(query.before ? { before: query.before } : {}),
        limit: query.limit,
      }),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/mail/messages/delete',
    tags,
    summary:
      'Delete stored mail to make room (all or nothing; evidence made from a mail stays); answers the usage after',
    params: z.object({ campaign_id: campaignId }).strict(),
    body: z.object({ mail_ids: z.array(mailId).min(1).max(MAX_DELETE) }).strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.mail.deleteMessages(ownerId, params.campaign_id, body.mail_ids),
  }),
];
