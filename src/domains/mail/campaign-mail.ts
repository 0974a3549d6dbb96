import type { CampaignMail } from '../campaigns/index.ts';
import { endAccess } from './access.ts';
import { mailForEvidence, recordMailEvidence } from './mail-reads.ts';

/** The mailbox as campaigns reach it (Extensions.campaignMail): evidence from mail, access that ends. */
export const campaignMail: CampaignMail = {
  forEvidence: mailForEvidence,
  recordEvidence: recordMailEvidence,
  endAccess,
};
