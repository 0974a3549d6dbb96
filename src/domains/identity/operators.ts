import type { IdentityService } from './identities.ts';

/**
 * Who operates this instance (CAIRN_OPERATOR_EMAILS, else the first owner), as the doors ask it:
 * whether an owner is an operator, owners by email for their credits, and the Arena reviewers
 * an operator names. The operator list is the deployment's, so it is bound here once.
 */
export class Operators {
  constructor(
    private readonly identity: IdentityService,
    private readonly operatorEmails: string[],
  ) {}

  isOperator(ownerId: string): Promise<boolean> {
    return this.identity.isOperator(ownerId, this.operatorEmails);
  }

  ownerByEmail(email: string): Promise<{ id: string; email: string }> {
    return this.identity.requireOwner(email);
  }

  /** The Arena reviewers: an operator's to read, OPERATOR_REQUIRED otherwise. */
  arenaReviewers(ownerId: string): Promise<{ reviewers: Array<{ owner_id: string; email: string }> }> {
    return this.identity.arenaReviewers({ ownerId, operatorEmails: this.operatorEmails });
  }

  /** Names a reviewer (or no longer): an operator's, OPERATOR_REQUIRED otherwise. */
  setArenaReviewer(ownerId: string, email: string, enabled: boolean) {
    return this.identity.setArenaReviewer(email, enabled, { ownerId, operatorEmails: this.operatorEmails });
  }
}
