import type { NotifyWaiter } from '../../storage/notify-waiter.ts';
import type { CampaignServices } from '../campaigns/index.ts';

/** What the mailbox tools need of the mail area. */
export interface MailDeps {
  /** The receiving domain of campaign mailboxes. */
  mailDomain: string;
  /** This process's mailbox wake-ups (one LISTEN), for campaign_mail_wait. */
  mailWaiter: NotifyWaiter;
  /** Signs mail cursors, so they are bound to the reader and the campaign. */
  secret: string;
}

/** The mailbox tools are campaign tools: campaigns' services, and the mail area's. */
export type MailToolServices = CampaignServices & { mailDeps: MailDeps };
