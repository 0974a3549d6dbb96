import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import type { Membership } from './core/member.ts';

/**
 * A check another area adds to task_complete (skills: attached skills to be read first). It runs
 * in the submission's transaction once the lease is found current, before the source checks,
 * and refuses by throwing a DomainError; nothing is submitted then.
 */
export type CompletionGate = (
  ex: Executor,
  input: { taskId: string; leaseId: string; agentId: string; now: Date },
) => Promise<void>;

/** No area adds a check: every submission goes on to its source checks. */
export const noCompletionGate: CompletionGate = async () => {};

/**
 * A campaign's mailbox as campaigns reach it (Extensions.campaignMail; the mail area provides
 * it): a mail read under the owner's grant becomes evidence, and a member who leaves loses its
 * access. Each runs in the caller's transaction.
 */
export interface CampaignMail {
  /** The mail evidence_submit with mail_id takes, locked; refuses without a grant or when it is not the campaign's. */
  forEvidence(ex: Executor, m: Membership, mailId: string): Promise<MailAsEvidence>;
  /** Notes which evidence a mail became, so sharing it again answers the same evidence. */
  recordEvidence(ex: Executor, mailId: string, evidenceId: string): Promise<void>;
  /** Ends the agent's pending or granted access to the campaign's mail; whether there was one. */
  endAccess(
    ex: Executor,
    end: { campaignId: string; agentId: string; endedBy: string; now: Date },
  ): Promise<boolean>;
}

/** A received mail, as it becomes evidence. */
export interface MailAsEvidence {
  id: string;
  evidenceId: string | null;
  messageIdHeader: string | null;
  subject: string | null;
  text: string;
  flags: string[];
  instructionSpans: unknown[];
  receivedAt: Date;
}

/** No mail area: there is no mail to share, and none to stop reading. */
export const noCampaignMail: CampaignMail = {
  forEvidence: async (_ex, m, mailId) => {
    throw new DomainError(
      'NOT_FOUND',
      `No mail ${mailId} in this campaign: this deployment has no campaign mailboxes.`,
      { mail_id: mailId, campaign_id: m.campaign.id },
      { next: 'Share evidence you read (evidence_id) or a file with evidence_submit instead.' },
    );
  },
  recordEvidence: async () => {},
  endAccess: async () => false,
};
