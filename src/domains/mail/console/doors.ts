import type { Doors } from '../../../framework/index.ts';
import { mailCallbackRoutes } from '../http/callbacks.ts';
import { startMailboxReceiver } from '../smtp/mailbox-receiver.ts';
import type { MailDoorServices } from './context.ts';
import { mailOperations } from './mail-operations.ts';
import { mailRoutes } from './mail-routes.ts';

/**
 * Every way mail comes in or is looked at besides the tools: the owner's mailbox pages and their
 * `/v1/campaigns/{id}/mail…` operations, the Mailgun and Postal callbacks, and the built-in SMTP
 * receiver (CAIRN_SMTP_PORT). All of them end in the one MailService.
 */
export const mailDoors: Doors<MailDoorServices> = {
  pages: mailRoutes,
  ownerOperations: mailOperations,
  // The providers' callbacks, with body parsers of their own (signatures are over raw bytes).
  publicRoutes: (app, ctx) =>
    mailCallbackRoutes(app, {
      mail: ctx.mail,
      clock: ctx.clock,
      ratePerMinute: ctx.config.publicRateLimitPerMinute,
      redis: ctx.redis,
      mailgun: ctx.config.mail.mailgun,
      postal: ctx.config.mail.postal,
    }),
  listeners: { smtp: (ctx, logger) => startMailboxReceiver(ctx.config, ctx.mail, logger) },
};
