import type { Area } from '../../framework/index.ts';
import { NotifyWaiter } from '../../storage/notify-waiter.ts';
import { jobFailureLevel } from '../../storage/unavailable.ts';
import { Housekeeper } from '../identity/index.ts';
import { campaignMail } from './campaign-mail.ts';
import { mailDoors } from './console/doors.ts';
import { DeferredMailReader } from './deferred.ts';
import { MAIL_CHANNEL } from './deliver.ts';
import { PUBLISHED_MAIL_LIMITS } from './limits.ts';
import { mailFeed } from './mail-feed.ts';
import { mailTools } from './mail-tools.ts';
import { MailService } from './owner-mail.ts';
import { sweepMail } from './retention.ts';
import { type MailSettings, mailSettings } from './settings.ts';
import * as tables from './tables.ts';

export { type DeliveryOutcome, MAIL_CHANNEL, type RecipientVerdict } from './deliver.ts';
export { MailService } from './owner-mail.ts';
export { sweepMail } from './retention.ts';
export type { InboundMail, MailRefusal, MailVia, ProcessedMail } from './types.ts';

/**
 * Mail (docs/mail.md): a campaign's receiving mailbox. Addresses, delivery from SMTP and the
 * providers' callbacks, reading it later when the parsers are busy, the owner's access grants,
 * the campaign_mail_* tools, retention, and the owner's pages. A mailbox belongs to a campaign:
 * its readers are the campaign's members, through campaigns' index; campaigns reach the mailbox
 * back only through Extensions.campaignMail. Its refusal code, MAIL_ACCESS_REQUIRED, stays
 * declared with campaigns', so `/v1/public/errors` keeps its order.
 */
export const mailArea = {
  name: 'mail',
  settings: mailSettings,
  doors: mailDoors,
  tables,
  errors: {},
  operations: mailTools,
  limits: PUBLISHED_MAIL_LIMITS,
  extensions: { campaignMail },
  start({ database, clock, secret, parser, logger, config }) {
    // This process's mailbox wake-ups (one LISTEN), for campaign_mail_wait.
    const mailWaiter = new NotifyWaiter(database, MAIL_CHANNEL);
    // Deletes delivery records past their retention (never mail); every replica may run it.
    const sweeper = new Housekeeper(
      () => sweepMail(database.db, clock.now()),
      (result) =>
        result instanceof Error
          ? logger[jobFailureLevel(result)](
              { err: result },
              'mail retention sweep failed; it runs again in ten minutes',
            )
          : logger.debug({ result }, 'mail retention sweep done'),
    );
    return {
      services: {
        mailDeps: { mailDomain: config.mail.domain, mailWaiter, secret },
        mail: new MailService(database, clock, parser, config.mail.domain),
      },
      // Granted members can be woken for new mail (a 2026-07-28 listen).
      feeds: [mailFeed(database, secret, mailWaiter)],
      // A waiting campaign_mail_wait answers as soon as the server starts closing.
      workers: [
        sweeper,
        new DeferredMailReader(database, parser, clock, logger),
        { start: () => {}, drain: async () => mailWaiter.close(), stop: () => {} },
      ],
    };
  },
} satisfies Area;

type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** mailboxes. */
    mail: 'mail';
    /** mail attempts. */
    mat: 'mail';
    /** deferred mail reads. */
    mdf: 'mail';
    /** mail access requests. */
    mar: 'mail';
  }
}

/** Its settings, joined into Config (config/settings.ts). */
declare module '../../config/settings.ts' {
  interface AreaSettings extends MailSettings {}
}
