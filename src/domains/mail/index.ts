/**
 * Inbound mail's pure pieces (issue 18, docs/mail.md): the shared types, and the two provider
 * callbacks' signature checks and payload readers. Not an area (no tables, no tools): campaign
 * mailboxes live in campaigns/mail, and transports hand what these produce to its deliverMail.
 */
export {
  type MailgunFile,
  mailgunToInbound,
  verifyMailgun,
} from './inbound/mailgun.ts';
export { postalPublicKey, postalToInbound, verifyPostal } from './inbound/postal.ts';
export type { InboundMail, MailRefusal, MailVia, ProcessedMail } from './types.ts';
