import { hash } from '@node-rs/argon2';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { hashSecret, newId } from '../../kernel/ids.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { type AboutInput, mergeAbout } from './about.ts';
import * as agentRepo from './agent-repo.ts';
import { arenaReviewers, setArenaReviewer } from './arena-activation.ts';
import { type Authenticated, authenticateBearer } from './credentials/authenticate.ts';
import { reissueBootstrap } from './credentials/bootstrap-tokens.ts';
import { revokeGrantsOfAgent } from './credentials/oauth-repo.ts';
import { issueOwnerToken, OwnerTokenService } from './credentials/owner-tokens.ts';
import { issueProjectKey } from './credentials/project-keys.ts';
import * as tokenRepo from './credentials/token-repo.ts';
import { setModeOf, suspendAgent, unsuspendAgent } from './management.ts';
import { wakeAgent } from './notifications.ts';
import { type InboxMessage, takeOwnerMessages } from './owner-messages.ts';
import {
  type AboutYou,
  type Agent,
  type Caller,
  type CampaignLink,
  type CampaignLinks,
  noCampaignLinks,
  noStanding,
  type StandingColumn,
} from './types.ts';

/** Owner and agent identities, project keys, and bearer authentication. */
export class IdentityService {
  private readonly credentialLookup: agentRepo.CredentialLookup;
  private readonly accessLookup: tokenRepo.AccessLookup;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    /** This server's protected resource: an access token issued for another is refused (RFC 8707). */
    private readonly audience: string,
    standing: StandingColumn = noStanding,
    private readonly links: CampaignLinks = noCampaignLinks,
  ) {
    this.credentialLookup = agentRepo.prepareCredentialLookup(database.db, standing);
    this.accessLookup = tokenRepo.prepareAccessLookup(database.db, standing);
  }

  /** The open campaigns the identity is a member of or invited to (for its status answers). */
  campaignLinks(ex: Executor, agentId: string): Promise<CampaignLink[]> {
    return this.links(ex, agentId);
  }

  /**
   * Registers a human owner; the password is kept only as an argon2id hash. `reviewer` names the
   * new account an Arena reviewer in the same transaction (`cairn owner add --reviewer`).
   */
  async addOwner(email: string, password: string, opts: { reviewer?: boolean } = {}) {
    const now = this.clock.now();
    const id = newId('own', now);
    const passwordHash = await hash(password);
    return this.database.transaction(async (tx) => {
      const created = await agentRepo.insertOwner(tx, {
        id,
        email: email.trim(),
        passwordHash,
        createdAt: now,
      });
      if (!created)
        throw new DomainError('CONFLICT', `An owner with email ${email} already exists.`, { email });
      if (!opts.reviewer) return { owner_id: id };
      await setArenaReviewer(tx, email, true, now, 'cli');
      return { owner_id: id, arena_reviewer: true };
    });
  }

  /**
   * Names an owner account an Arena reviewer, or no longer: the operator at the CLI (`cairn owner
   * reviewer`, `by` omitted), or an operator of this instance in the console or owner API (`by`).
   */
  async setArenaReviewer(email: string, on: boolean, by?: { ownerId: string; operatorEmails: string[] }) {
    if (by) await this.requireOperator(by.ownerId, by.operatorEmails, 'names Arena reviewers');
    return this.database.transaction((tx) =>
      setArenaReviewer(tx, email, on, this.clock.now(), by ? `owner:${by.ownerId}` : 'cli'),
    );
  }

  /** The Arena reviewers, for an operator of this instance (console, owner API). */
  async arenaReviewers(by: { ownerId: string; operatorEmails: string[] }) {
    await this.requireOperator(by.ownerId, by.operatorEmails, 'sees who reviews the Arena');
    return { reviewers: await arenaReviewers(this.database.db) };
  }

  private async requireOperator(ownerId: string, operatorEmails: string[], what: string): Promise<void> {
    if (await this.isOperator(ownerId, operatorEmails)) return;
    throw new DomainError(
      'OPERATOR_REQUIRED',
      `Only an operator of this Cairn ${what}.`,
      {},
      {
        next: 'Ask the operator of this Cairn (CAIRN_OPERATOR_EMAILS, or the first owner) to do it.',
      },
    );
  }

  /** Creates an inert agent identity for an owner: it has no mode until the owner activates one. */
  async addAgent(input: {
    ownerEmail: string;
    displayName: string;
    runtime: string;
    kind: Agent['kind'];
  }): Promise<{ agent_id: string }> {
    const owner = await agentRepo.findOwnerByEmail(this.database.db, input.ownerEmail);
    if (!owner) throw new DomainError('NOT_FOUND', `No owner with email ${input.ownerEmail}.`);
    const now = this.clock.now();
    const id = newId('agt', now);
    await agentRepo.insertAgent(this.database.db, {
      id,
      ownerId: owner.id,
      displayName: input.displayName,
      runtime: input.runtime,
      kind: input.kind,
      createdAt: now,
    });
    return { agent_id: id };
  }

  /** Issues a project key (cd_prj_) for an agent. The key is returned once; only its hash is kept. */
  async addProjectKey(agentId: string, days: number): Promise<{ project_key: string; expires_at: string }> {
    const agent = await this.requireAgent(this.database.db, agentId);
    const { project_key, expires_at } = await issueProjectKey(
      this.database.db,
      agent,
      days,
      this.clock.now(),
    );
    return { project_key, expires_at };
  }

  /** An owner API token (cd_own_) for the owner with this email (the operator's `cairn owner token add`). */
  async addOwnerToken(email: string, name: string, days: number) {
    const owner = await this.requireOwner(email);
    return this.database.transaction((tx) => issueOwnerToken(tx, owner.id, { name, days }, this.clock.now()));
  }

  /** The owner's API tokens, without any secret. */
  async listOwnerTokens(email: string) {
    const owner = await this.requireOwner(email);
    return { tokens: await new OwnerTokenService(this.database, this.clock).list(owner.id) };
  }

  /** Revokes one of the owner's API tokens by id (the operator's `cairn owner token revoke`). */
  async revokeOwnerToken(email: string, tokenId: string) {
    const owner = await this.requireOwner(email);
    return { token: await new OwnerTokenService(this.database, this.clock).revoke(owner.id, tokenId) };
  }

  /** The owner with this email (case-insensitive), or NOT_FOUND. */
  async requireOwner(email: string) {
    const owner = await agentRepo.findOwnerByEmail(this.database.db, email);
    if (!owner) throw new DomainError('NOT_FOUND', `No owner with email ${email}.`);
    return owner;
  }

  /**
   * Whether this owner operates the instance: listed in CAIRN_OPERATOR_EMAILS, or, when that is
   * empty, the first owner (the one who set it up). Operators credit balances in the console.
   */
  async isOperator(ownerId: string, operatorEmails: string[]): Promise<boolean> {
    const owner = await agentRepo.findOwner(this.database.db, ownerId);
    if (!owner) return false;
    if (operatorEmails.length > 0) return operatorEmails.includes(owner.email.toLowerCase());
    return (await agentRepo.firstOwnerId(this.database.db)) === ownerId;
  }

  /** A new bootstrap token for an owner-created identity (the operator's `cairn agent bootstrap`). */
  async reissueBootstrap(agentId: string, days: number) {
    return this.database.transaction(async (tx) =>
      reissueBootstrap(tx, await this.requireAgent(tx, agentId), days, this.clock.now()),
    );
  }

  /** Sets an agent's mode (READ: public reading; CAMPAIGN: campaign work only; NONE: inert, everywhere). */
  async setMode(agentId: string, mode: Agent['mode']) {
    return this.database.transaction(async (tx) =>
      setModeOf(tx, await this.requireAgent(tx, agentId), mode, this.clock.now()),
    );
  }

  /** The operator's suspension of an identity (`cairn agent suspend`), with the reason it is told. */
  async suspendAgent(agentId: string, reason: string) {
    return this.database.transaction(async (tx) =>
      suspendAgent(tx, await this.requireAgent(tx, agentId), reason, this.clock.now()),
    );
  }

  /** Lifts a suspension (`cairn agent unsuspend`): the identity is back in the mode it had. */
  async unsuspendAgent(agentId: string) {
    return this.database.transaction(async (tx) =>
      unsuspendAgent(tx, await this.requireAgent(tx, agentId), this.clock.now()),
    );
  }

  /** Revokes one project key, named by its value; it fails from the very next request on. */
  async revokeProjectKey(projectKey: string): Promise<{ key_id: string; revoked_at: string }> {
    const now = this.clock.now();
    const key = await this.database.transaction(async (tx) => {
      const revoked = await agentRepo.revokeProjectKeyByHash(tx, hashSecret(projectKey.trim()), now);
      // Open streams of the identity re-check their credential at once, as after the console's revoke.
      if (revoked) await wakeAgent(tx, revoked.agentId);
      return revoked;
    });
    if (!key) throw new DomainError('NOT_FOUND', 'No active project key has that value.');
    return { key_id: key.id, revoked_at: now.toISOString() };
  }

  /** Revokes an identity: every credential of it stops working at once, and it can get no new ones. */
  async revokeAgent(agentId: string): Promise<{ agent_id: string; status: 'REVOKED' }> {
    await this.requireAgent(this.database.db, agentId);
    await this.database.transaction(async (tx) => {
      await agentRepo.updateAgentStatus(tx, agentId, 'REVOKED', this.clock.now());
      await revokeGrantsOfAgent(tx, agentId, this.clock.now());
      await wakeAgent(tx, agentId);
    });
    return { agent_id: agentId, status: 'REVOKED' };
  }

  /** Resolves a bearer credential to its caller, and whether `sessionId` is its open MCP session (authenticate.ts). */
  async authenticate(bearer: string, sessionId: string | null = null): Promise<Authenticated> {
    const deps = {
      database: this.database,
      clock: this.clock,
      audience: this.audience,
      credentialLookup: this.credentialLookup,
      accessLookup: this.accessLookup,
    };
    return authenticateBearer(deps, bearer, sessionId);
  }

  /** The agent's inbox: owner messages not yet handed out, each handed out once. */
  async takeInbox(agentId: string): Promise<InboxMessage[]> {
    return takeOwnerMessages(this.database.db, agentId, this.clock.now());
  }

  /**
   * Records the agent's self-description; bad values are dropped and explained, never fatal.
   * Must run inside a transaction (`ex`): the agent row stays locked until it commits.
   */
  async updateAbout(ex: Executor, caller: Caller, input: AboutInput): Promise<AboutYou> {
    const current = await agentRepo.lockAgentAbout(ex, caller.agent.id);
    if (!current) throw new DomainError('NOT_FOUND', `No agent ${caller.agent.id}.`);
    const about = mergeAbout(current, input, this.clock.now());
    await agentRepo.updateAgentAbout(ex, caller.agent.id, about, this.clock.now());
    return about;
  }

  async findAgent(agentId: string): Promise<Agent | null> {
    return agentRepo.findAgent(this.database.db, agentId);
  }

  async counts() {
    return agentRepo.countIdentities(this.database.db);
  }

  private async requireAgent(ex: Executor, agentId: string): Promise<Agent> {
    const agent = await agentRepo.findAgent(ex, agentId);
    if (!agent) throw new DomainError('NOT_FOUND', `No agent ${agentId}.`);
    return agent;
  }
}
