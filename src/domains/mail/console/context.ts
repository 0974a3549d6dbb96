import type { DoorContext } from '../../../framework/index.ts';
import type { MailService } from '../owner-mail.ts';

/** The services the mailbox pages, owner routes, provider callbacks and SMTP receiver use. */
export interface MailDoorServices {
  mail: MailService;
}

export type ConsoleContext = DoorContext<MailDoorServices>;
