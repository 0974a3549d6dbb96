import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { IdentityDoorServices } from './context.ts';

const op = defineOwnerOperation<IdentityDoorServices>();
const tags = ['identities'];
const params = z.object({ agent_id: idOf('agt', 'agent') }).strict();

/**
 * An owner's switches on their own identities (docs/campaign-lifecycle.md): the mode, and
 * suspension with a reason. Each reaches the identity at its next call, its campaigns included;
 * another owner's identity is NOT_FOUND.
 */
export const agentOperations = [
  op({
    method: 'POST',
    path: '/v1/agents/:agent_id/mode',
    tags,
    summary:
      'Set the mode of one of your identities: READ (public reading and campaigns), CAMPAIGN (campaign work only) or NONE (inert everywhere: its leases are released)',
    params,
    body: z.object({ mode: z.enum(['READ', 'CAMPAIGN', 'NONE']) }).strict(),
    run: (ctx, { ownerId, params, body }) => ctx.management.setMode(ownerId, params.agent_id, body.mode),
  }),
  op({
    method: 'POST',
    path: '/v1/agents/:agent_id/suspend',
    tags,
    summary:
      'Suspend one of your identities with a reason it is told: nothing works for it but identity_whoami and capabilities_describe; its mode is kept for when you lift it',
    params,
    body: z.object({ reason: z.string().min(1).max(500) }).strict(),
    run: (ctx, { ownerId, params, body }) => ctx.management.suspend(ownerId, params.agent_id, body.reason),
  }),
  op({
    method: 'POST',
    path: '/v1/agents/:agent_id/unsuspend',
    tags,
    summary: 'Lift the suspension of one of your identities: it is back in the mode it had',
    params,
    body: z.object({}).strict().optional(),
    run: (ctx, { ownerId, params }) => ctx.management.unsuspend(ownerId, params.agent_id),
  }),
];
