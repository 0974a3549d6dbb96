import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { describeAgents, describeOwnerAgents, findAgent } from '../identity/index.ts';
import { ownerViewer } from './audience.ts';
import { closeCampaign } from './campaign-close.ts';
import type { CampaignRow, MemberRole } from './core/member.ts';
import { listTasks, liveLeasesOf } from './core/task-repo.ts';
import { campaignClosed, campaignNotOwned } from './errors.ts';
import { listEventsForOwner } from './ledger/ledger-repo.ts';
import type { LedgerWaiter } from './ledger/ledger-waiter.ts';
import { waitForOwnerEvents } from './ledger/owner-watch.ts';
import { createCampaignForOwner, type NewCampaign } from './membership/campaign-create.ts';
import { resumeCampaign, stopCampaign } from './membership/campaign-stop.ts';
import * as members from './membership/members-repo.ts';
import { decideInvitation, inviteAgent } from './membership/membership-changes.ts';
import { endMembership } from './membership/membership-ends.ts';
import { findVisibleMessage } from './messages/message-repo.ts';
import {
  listMessagesForOwner,
  type OWNER_MESSAGE_TYPES,
  postOwnerComment,
  presentMessage,
} from './messages/messages.ts';
import { presentCampaign } from './present.ts';
import { campaignMembers, campaigns } from './tables.ts';
import { taskChoices } from './task-choices.ts';
import { cancelTask } from './tasks/task-cancel.ts';
import { presentTaskSummary } from './tasks/task-present.ts';
import { type PublishInput, publishTaskAsOwner } from './tasks/task-publish.ts';
import type { CampaignMail } from './types.ts';

/** How many campaigns, tasks, messages and ledger events one console page shows. */
const PAGE = 25;

/** Where the campaign page's three lists continue (each from its own "older" link). */
export interface CampaignPageCursors {
  tasksBefore?: string | undefined;
  messagesBefore?: string | undefined;
  ledgerBeforeSeq?: number | undefined;
}

export interface OwnerComment {
  type: (typeof OWNER_MESSAGE_TYPES)[number];
  content: string;
  addressed_to?: string | undefined;
}

/**
 * What a signed-in owner does with campaigns from the console and `/v1/campaigns/...`: the same
 * domain functions the tools use, run in a transaction and scoped to that owner. Only the owner
 * of record reaches a campaign here; for anyone else it does not exist (NOT_FOUND), so the
 * answer never tells one owner about another's campaigns.
 */
export class CampaignOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    /** This process's ledger wake-ups (the one events_watch uses), for the live console page. */
    private readonly ledger: LedgerWaiter,
    /** The mailbox a removed member stops reading (Extensions.campaignMail). */
    private readonly campaignMail: CampaignMail,
  ) {}

  /**
   * The owner's campaigns (newest first, one page), the invitations of their agents to other
   * owners' campaigns that wait for them, and their active agents (coordinator choices).
   */
  async overview(ownerId: string, before?: string) {
    const ex = this.database.db;
    const rows = await ownedCampaigns(ex, ownerId, PAGE, before);
    const page = cutPage(rows, PAGE, (last) => last.campaign.id);
    const agents = await describeOwnerAgents(ex, ownerId);
    const names = new Map(agents.map((a) => [a.id, a.displayName]));
    const pending = await members.pendingForOwner(
      ex,
      agents.map((a) => a.id),
    );
    return {
      campaigns: page.rows.map((r) => ({ ...presentCampaign(r.campaign), active_members: r.active })),
      next_before: page.next,
      invitations: pending.map(({ campaign, member }) => ({
        campaign_id: campaign.id,
        title: campaign.title,
        objective: campaign.objective,
        visibility: campaign.visibility,
        participation: campaign.participation,
        agent_id: member.agentId,
        agent_name: names.get(member.agentId) ?? member.agentId,
        role: member.role,
        invited_at: member.updatedAt.toISOString(),
      })),
      agents: agents.map(presentOwnAgent),
    };
  }

  /** The owner's active agents: whom they may make coordinator or invite directly. */
  async agents(ownerId: string) {
    return (await describeOwnerAgents(this.database.db, ownerId)).map(presentOwnAgent);
  }

  /** Creates a campaign with the owner as owner of record and one of their agents as coordinator. */
  createCampaign(ownerId: string, coordinatorId: string, input: NewCampaign) {
    return this.database.transaction((tx) =>
      createCampaignForOwner(tx, ownerId, coordinatorId, input, this.clock.now()),
    );
  }

  /** Settings and members of one of the owner's campaigns. */
  async campaign(ownerId: string, campaignId: string) {
    const ex = this.database.db;
    const campaign = await ownedCampaign(ex, ownerId, campaignId);
    return {
      ...presentCampaign(campaign),
      ledger: { last_seq: campaign.lastSeq },
      members: await membersOf(ex, ownerId, campaign.id),
    };
  }

  /** Everything the console's campaign page shows: settings, members, tasks, messages, ledger. */
  async campaignPage(ownerId: string, campaignId: string, cursors: CampaignPageCursors = {}) {
    const ex = this.database.db;
    const now = this.clock.now();
    const campaign = await ownedCampaign(ex, ownerId, campaignId);
    const viewer = ownerViewer(campaign);
    const taskRows = await listTasks(ex, viewer, { beforeId: cursors.tasksBefore }, PAGE, now);
    const taskPage = cutPage(taskRows, PAGE, (last) => last.id);
    const leases = await liveLeasesOf(
      ex,
      taskPage.rows.map((t) => t.id),
      now,
    );
    const messages = await listMessagesForOwner(ex, campaign, PAGE, cursors.messagesBefore);
    const ledger = await listEventsForOwner(ex, campaign, PAGE, cursors.ledgerBeforeSeq);
    return {
      campaign: presentCampaign(campaign),
      // Read before the lists: a live page that follows the ledger from here misses nothing.
      last_seq: campaign.lastSeq,
      members: await membersOf(ex, ownerId, campaign.id),
      agents: await this.agents(ownerId),
      tasks: taskPage.rows.map((t) => presentTaskSummary(t, viewer, leases.get(t.id) ?? null)),
      next_tasks_before: taskPage.next,
      messages: messages.messages,
      next_messages_before: messages.nextBefore,
      events: ledger.events,
      next_ledger_before: ledger.nextBeforeSeq,
    };
  }

  /** Lightweight task choices (id, title, status) of one of the owner's campaigns, a page at a time. */
  async taskChoices(
    ownerId: string,
    campaignId: string,
    page: { cursor?: string | undefined; limit?: number | undefined },
    secret: string,
  ) {
    const ex = this.database.db;
    const campaign = await ownedCampaign(ex, ownerId, campaignId);
    return taskChoices(ex, ownerId, campaign.id, page, secret);
  }

  /**
   * The campaign's ledger events after `afterSeq` as its owner sees them, waiting up to
   * `waitMs` for the first (the live console page). NOT_FOUND unless the owner's campaign.
   */
  liveEvents(
    ownerId: string,
    campaignId: string,
    afterSeq: number,
    opts: { waitMs: number; limit: number; signal?: AbortSignal | undefined },
  ) {
    const ex = this.database.db;
    return waitForOwnerEvents(ex, this.ledger, () => ownedCampaign(ex, ownerId, campaignId), afterSeq, opts);
  }

  /**
   * Invites an agent (the owner's own: INVITED; another owner's: OWNER_PENDING), admits an
   * applicant, or changes an active member's role, as the owner of record.
   */
  invite(ownerId: string, campaignId: string, agentId: string, role: MemberRole) {
    return this.database.transaction(async (tx) => {
      const campaign = requireOpen(await ownedCampaign(tx, ownerId, campaignId));
      const inviter = { campaign, ownerId, role: 'OWNER' as const };
      return inviteAgent(tx, inviter, { agentId, role }, this.clock.now());
    });
  }

  /** Publishes a task as the owner of record (INCOMPLETE when condition terms are missing). */
  publishTask(ownerId: string, campaignId: string, input: PublishInput) {
    return this.database.transaction((tx) =>
      publishTaskAsOwner(tx, ownerId, campaignId, input, this.clock.now()),
    );
  }

  /** Cancels a task of the owner's campaign, refunding an escrowed reward in the same transaction. */
  cancelTask(ownerId: string, taskId: string, reason: string) {
    return this.database.transaction((tx) => cancelTask(tx, ownerId, taskId, reason, this.clock.now()));
  }

  /** Posts an OWNER_COMMENT message; returns it as members read it. */
  postComment(ownerId: string, campaignId: string, input: OwnerComment) {
    return this.database.transaction(async (tx) => {
      const campaign = await ownedCampaign(tx, ownerId, campaignId);
      const posted = await postOwnerComment(tx, ownerId, campaign, input, this.clock.now());
      const row = await findVisibleMessage(tx, ownerViewer(campaign), posted.message_id);
      if (!row) throw new Error(`message ${posted.message_id} vanished in its own transaction`);
      return { ...presentMessage(row), seq: posted.seq };
    });
  }

  /**
   * Closes one of the owner's campaigns (docs/campaign-lifecycle.md): CLOSED at once, then what
   * still runs is settled. Closing a closed campaign answers its state again (and settles what a
   * failed earlier close left), so a retried request is harmless.
   */
  close(ownerId: string, campaignId: string, reason?: string) {
    return closeCampaign(this.database, this.clock, (ex) => ownedCampaign(ex, ownerId, campaignId), reason);
  }

  /** Stops one of the owner's campaigns: running leases finish, nothing new starts. */
  stop(ownerId: string, campaignId: string, reason?: string) {
    return stopCampaign(this.database, this.clock, (ex) => ownedCampaign(ex, ownerId, campaignId), reason);
  }

  /** Resumes a stopped campaign: it takes new work again. */
  resume(ownerId: string, campaignId: string) {
    return resumeCampaign(this.database, this.clock, (ex) => ownedCampaign(ex, ownerId, campaignId));
  }

  /**
   * Ends a membership from the owner side: the owner of record removes any member (REMOVED); the
   * member's own owner withdraws it from someone else's campaign (WITHDRAWN). For anyone else the
   * campaign is NOT_FOUND, as everywhere.
   */
  removeMember(ownerId: string, campaignId: string, agentId: string, reason?: string) {
    return this.database.transaction(async (tx) => {
      const campaign = await members.findCampaign(tx, campaignId);
      const why = reason?.trim() ? reason.trim().slice(0, 500) : null;
      if (campaign?.ownerId === ownerId) {
        return endMembership(
          tx,
          campaign,
          agentId,
          { how: 'REMOVED', actor: { ownerId, role: 'OWNER' }, reason: why },
          this.clock.now(),
          this.campaignMail,
        );
      }
      const agent = campaign ? await findAgent(tx, agentId) : null;
      // Only a campaign the owner's agent is tied to is answered; any other is NOT_FOUND, so
      // another owner's campaign ids cannot be probed through here.
      const tied = agent?.ownerId === ownerId ? await members.lockMember(tx, campaignId, agentId) : null;
      if (!campaign || !tied) throw campaignNotOwned(campaignId);
      // Another owner's campaign: the ledger says the member's owner withdrew it, not who that is.
      return endMembership(
        tx,
        campaign,
        agentId,
        { how: 'WITHDRAWN', actor: { role: 'SYSTEM' }, reason: why },
        this.clock.now(),
        this.campaignMail,
      );
    });
  }

  /** Accepts or declines an invitation of one of the owner's agents to another owner's campaign. */
  decideInvitation(ownerId: string, campaignId: string, agentId: string, accept: boolean) {
    return this.database.transaction((tx) =>
      decideInvitation(tx, ownerId, campaignId, agentId, accept, this.clock.now()),
    );
  }
}

function presentOwnAgent(a: { id: string; displayName: string; mode: string }) {
  return { agent_id: a.id, display_name: a.displayName, mode: a.mode };
}

/** The campaign if this owner is its owner of record; the same NOT_FOUND whether absent or another's. */
async function ownedCampaign(ex: Executor, ownerId: string, campaignId: string): Promise<CampaignRow> {
  const campaign = await members.findCampaign(ex, campaignId);
  if (campaign?.ownerId !== ownerId) {
    throw campaignNotOwned(campaignId);
  }
  return campaign;
}

function requireOpen(campaign: CampaignRow): CampaignRow {
  if (campaign.status === 'CLOSED') {
    throw campaignClosed(campaign.id);
  }
  return campaign;
}

/** Members in joining order with their names, and whether each is one of the viewing owner's. */
async function membersOf(ex: Executor, ownerId: string, campaignId: string) {
  const rows = await members.listMembers(ex, campaignId);
  const agents = new Map(
    (
      await describeAgents(
        ex,
        rows.map((r) => r.agentId),
      )
    ).map((a) => [a.id, a]),
  );
  return rows.map((r) => ({
    agent_id: r.agentId,
    display_name: agents.get(r.agentId)?.displayName ?? null,
    yours: agents.get(r.agentId)?.ownerId === ownerId,
    role: r.role,
    membership: r.status,
    joined_at: r.joinedAt?.toISOString() ?? null,
  }));
}

/**
 * The owner's campaigns as owner of record, newest first, with their active member counts;
 * one more row than `limit` to tell whether older ones remain. Here rather than in
 * members-repo.ts because only the console lists campaigns by owner.
 */
async function ownedCampaigns(ex: Executor, ownerId: string, limit: number, before?: string) {
  return ex
    .select({
      campaign: campaigns,
      active: sql<number>`(select count(*)::int from ${campaignMembers}
        where ${campaignMembers.campaignId} = ${campaigns.id} and ${campaignMembers.status} = 'ACTIVE')`,
    })
    .from(campaigns)
    .where(and(eq(campaigns.ownerId, ownerId), before ? lt(campaigns.id, before) : undefined))
    .orderBy(desc(campaigns.id))
    .limit(limit + 1);
}
