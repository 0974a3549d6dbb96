import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { storeReceivedMail } from '../../reading/index.ts';
import { requireMembership } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import type { CampaignMail } from '../types.ts';
import { shareEvidence } from './evidence-share.ts';

/**
 * evidence_submit with mail_id (docs/mail.md "Mail as evidence"): a mail of the campaign, read
 * under the owner's grant, becomes campaign evidence (provenance RECEIVED_MAIL, label
 * UNTRUSTED_EMAIL) so quotations of it verify in task_complete. A mail becomes evidence once;
 * sharing it again answers the same evidence_id with `already_shared`. Its text is then seen by
 * the campaign's members under the visibility mode, like any shared evidence: sharing is the
 * granted agent's deliberate act, recorded as EVIDENCE_SUBMITTED.
 */
export async function submitMailEvidence(
  ex: Executor,
  caller: Caller,
  input: {
    campaignId?: string | undefined;
    mailId: string;
    taskId?: string | undefined;
    note?: string | undefined;
  },
  now: Date,
  campaignMail: CampaignMail,
) {
  const member = input.taskId
    ? (await taskForMember(ex, caller, input.taskId, { forChange: true, campaignId: input.campaignId }))
        .member
    : await requireMembership(ex, caller, input.campaignId, { forChange: true });
  const mail = await campaignMail.forEvidence(ex, member, input.mailId);
  let evidenceId = mail.evidenceId;
  if (!evidenceId) {
    const stored = await storeReceivedMail(
      ex,
      {
        id: newId('evd', now),
        agentId: caller.agent.id,
        mailId: mail.id,
        messageId: mail.messageIdHeader,
        subject: mail.subject,
        text: mail.text,
        flags: mail.flags,
        instructionSpans: mail.instructionSpans,
        receivedAt: mail.receivedAt,
        campaignId: member.campaign.id,
        taskId: input.taskId ?? null,
      },
      now,
    );
    evidenceId = stored.id;
    await campaignMail.recordEvidence(ex, mail.id, evidenceId);
  }
  const shared = await shareEvidence(ex, member, { id: evidenceId, provenance: 'RECEIVED_MAIL' }, input, now);
  return {
    ...shared,
    mail_id: mail.id,
    provenance: 'RECEIVED_MAIL',
    trust_label: 'UNTRUSTED_EMAIL',
    next_steps: [
      {
        tool: 'evidence_locate',
        action:
          'Find the quote you will cite in it (task_complete looks quotations up in attached evidence).',
        arguments: { evidence_id: evidenceId, quote: '…' },
      },
      {
        tool: 'task_complete',
        action: 'Attach it in evidence_ids when you hand in the result it supports.',
        arguments: { evidence_ids: [evidenceId] },
      },
    ],
  };
}
