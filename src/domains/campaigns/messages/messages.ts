import type { z } from 'zod';
import { findCredential } from '../../../kernel/credential-scan.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { cutPage } from '../../../kernel/paging.ts';
import { plainText } from '../../../kernel/plain-text.ts';
import { toValidationDetail } from '../../../kernel/validation.ts';
import type { Executor, TransactionEnd } from '../../../storage/database.ts';
import { ownerViewer, type Viewer } from '../audience.ts';
import { type Actor, type AlongRow, alongInserts, appendEvent, appendEventAtCommit } from '../core/ledger.ts';
import { activeMembers, type CampaignRow } from '../core/member.ts';
import { campaignClosed, taskNotFound } from '../errors.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import * as repo from './message-repo.ts';

/**
 * Campaign messages (SPEC Message): who may write what, to whom, and how it is recorded. The
 * audience of a message is decided by addressed_to and the campaign's visibility mode only
 * (audience.ts); names inside the content never route it, and nothing here parses it.
 */

const { maxChars, maxBytes } = CAMPAIGN_LIMITS.messageContent;

/** Message content: 1-8,000 characters and at most 16 KiB of UTF-8, plain text. */
export const messageContentArg = plainText(1, maxChars)
  .trim()
  .min(1, 'must not be blank')
  .refine(
    (s) => Buffer.byteLength(s, 'utf8') <= maxBytes,
    `must be at most ${maxBytes} bytes of UTF-8 (16 KiB; the limit of campaign message content)`,
  )
  .describe('The message, plain text: 1-8,000 characters and at most 16 KiB of UTF-8.');

export const AGENT_MESSAGE_TYPES = ['NOTE', 'QUESTION', 'ANSWER', 'REFUSAL'] as const;
export const OWNER_MESSAGE_TYPES = ['NOTE', 'QUESTION', 'ANSWER'] as const;

/** What a new message says and links to; the audience is addressedTo plus the mode, nothing else. */
export interface MessageDraft {
  type: string;
  content: string;
  addressedTo?: string | null | undefined;
  replyTo?: string | null | undefined;
  taskId?: string | null | undefined;
  label?: string | null;
  data?: Record<string, unknown>;
  /**
   * A reply kept private to its thread (an answer to a blind participant's proposal): addressed
   * to the proposer even if it has left since, and never widened to the campaign instead.
   */
  threadReply?: boolean;
}

/** The event recording the message, and anything the event adds to `{message}` in its payload. */
export interface MessageEvent {
  kind: 'MESSAGE_POSTED' | 'PROPOSAL_CREATED' | 'PROPOSAL_RESPONDED' | 'DECISION_RECORDED';
  payload?: Record<string, unknown>;
}

export type MessageRow = repo.MessageRow;

export function presentMessage(r: MessageRow) {
  return {
    message_id: r.id,
    type: r.type,
    label: r.label,
    from: r.agentId ? { agent_id: r.agentId } : { owner_id: r.ownerId },
    content: r.content,
    addressed_to: r.addressedTo,
    reply_to: r.replyTo,
    task_id: r.taskId,
    // Proposal title and status, response, decision outcome: keys written only by this area.
    ...r.data,
    created_at: r.createdAt.toISOString(),
  };
}

/** Where content is cut in compact pages. */
export const COMPACT_CHARS = 500;

/** The message with its content cut to COMPACT_CHARS (never inside a surrogate pair), flagged. */
export function presentCompact(r: MessageRow) {
  const full = presentMessage(r);
  if (r.content.length <= COMPACT_CHARS) return full;
  const high = r.content.charCodeAt(COMPACT_CHARS - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? COMPACT_CHARS - 1 : COMPACT_CHARS;
  return { ...full, content: r.content.slice(0, end), truncated: true };
}

/**
 * Records one message and its ledger event in the caller's transaction. Checks, in order: the
 * addressee is an active member, reply_to is a message the author may see, task_id a task of
 * the campaign the author may see; after the insert, that the addressee can actually see the
 * message under the mode (a direct message nobody but its author could read is refused, not
 * silently stored).
 */
export async function postMessage(
  ex: Executor,
  author: Viewer,
  draft: MessageDraft,
  event: MessageEvent,
  now: Date,
) {
  const { row, ledgerEvent, along } = await checkedMessage(ex, author, draft, event, now);
  const { seq } = await appendEvent(ex, author.campaign.id, ledgerEvent, now, alongInserts(ex, along));
  return { message_id: row.id, seq, created_at: now.toISOString(), row };
}

/**
 * postMessage as the last writes of a mutation: the message and its ledger event are sent with
 * the COMMIT (`appendEventAtCommit`), so the campaign's counter is held only while PostgreSQL
 * commits. The seq comes as a CommitValue, filled in by the stored answer.
 */
export async function postMessageAtCommit(
  ex: Executor,
  end: TransactionEnd,
  author: Viewer,
  draft: MessageDraft,
  event: MessageEvent,
  now: Date,
) {
  const { row, ledgerEvent, along } = await checkedMessage(ex, author, draft, event, now);
  const { seq } = appendEventAtCommit(ex, end, author.campaign.id, ledgerEvent, now, along);
  return { message_id: row.id, seq, created_at: now.toISOString(), row };
}

/** The checks of postMessage, the row, and what travels with its ledger event. */
async function checkedMessage(
  ex: Executor,
  author: Viewer,
  draft: MessageDraft,
  event: MessageEvent,
  now: Date,
) {
  const campaign = author.campaign;
  const addressee =
    draft.addressedTo && !draft.threadReply ? await requireAddressee(ex, author, draft.addressedTo) : null;
  if (draft.replyTo && !(await repo.findVisibleMessage(ex, author, draft.replyTo))) {
    throw new DomainError(
      'NOT_FOUND',
      `No message ${draft.replyTo} that you can see exists in this campaign.`,
      {
        reply_to: draft.replyTo,
        campaign_id: campaign.id,
      },
    );
  }
  if (draft.taskId && !(await repo.taskVisibleTo(ex, author, draft.taskId))) {
    throw taskNotFound(draft.taskId);
  }
  const row: MessageRow = {
    id: newId('msg', now),
    campaignId: campaign.id,
    agentId: author.agentId,
    ownerId: author.agentId ? null : campaign.ownerId,
    authorRole: author.role,
    type: draft.type,
    label: draft.label ?? null,
    content: draft.content,
    addressedTo: draft.addressedTo ?? null,
    replyTo: draft.replyTo ?? null,
    taskId: draft.taskId ?? null,
    data: draft.data ?? {},
    createdAt: now,
  };
  // The message travels with its ledger event (one statement), unless the addressee's view of it
  // must be checked first, which needs the row in place.
  if (addressee) {
    await repo.messageInsert(ex, row);
    await requireAddresseeSees(ex, { campaign, ...addressee }, row.id);
  }
  const ledgerEvent = {
    kind: event.kind,
    actor: actorOfViewer(author),
    taskId: row.taskId,
    messageId: row.id,
    addressedTo: row.addressedTo,
    payload: { message: presentMessage(row), ...event.payload },
  };
  const along: AlongRow[] = addressee ? [] : [repo.messageAlong(row)];
  return { row, ledgerEvent, along };
}

/**
 * An OWNER_COMMENT from the console (and POST /v1/campaigns/{id}/messages). Only the owner of
 * record may post one: membership of agents gives an owner no voice in someone else's campaign.
 * Validates the content itself (the console is another door) and refuses credentials in it.
 */
export async function postOwnerComment(
  ex: Executor,
  ownerId: string,
  campaign: CampaignRow,
  input: { type: (typeof OWNER_MESSAGE_TYPES)[number]; content: string; addressed_to?: string | undefined },
  now: Date,
): Promise<{ message_id: string; seq: number; created_at: string }> {
  if (campaign.ownerId !== ownerId) {
    throw new DomainError(
      'ROLE_REQUIRED',
      'Only the owner of record of this campaign may post owner comments.',
      {
        campaign_id: campaign.id,
        required_role: 'OWNER',
      },
    );
  }
  if (campaign.status === 'CLOSED') {
    throw campaignClosed(campaign.id);
  }
  if (!(OWNER_MESSAGE_TYPES as readonly string[]).includes(input.type)) {
    throw invalidField('type', `must be one of ${OWNER_MESSAGE_TYPES.join(', ')}`, 'invalid_value');
  }
  const content = parseContent(input.content);
  const secret = findCredential(content);
  if (secret) {
    throw new DomainError(
      'CREDENTIAL_IN_INPUT',
      `The message contains what looks like a credential (${secret.kind}). It was not stored.`,
      { path: 'content', kind: secret.kind },
    );
  }
  const { row: _row, ...posted } = await postMessage(
    ex,
    ownerViewer(campaign),
    { type: input.type, content, addressedTo: input.addressed_to, label: 'OWNER_COMMENT' },
    { kind: 'MESSAGE_POSTED' },
    now,
  );
  return posted;
}

/**
 * The campaign's messages for its owner of record in the console (the owner sees every message,
 * direct ones included), newest first. `nextBefore` continues the page; null on the oldest page.
 */
export async function listMessagesForOwner(
  ex: Executor,
  campaign: CampaignRow,
  limit: number,
  before?: string,
): Promise<{ messages: Array<ReturnType<typeof presentMessage>>; nextBefore: string | null }> {
  const rows = await repo.listVisibleMessages(ex, ownerViewer(campaign), limit, before);
  const page = cutPage(rows, limit, (last) => last.id);
  return {
    messages: page.rows.map(presentMessage),
    nextBefore: page.next,
  };
}

function actorOfViewer(v: Viewer): Actor {
  if (v.agentId && v.role !== 'OWNER') return { agentId: v.agentId, role: v.role };
  return { ownerId: v.campaign.ownerId, role: 'OWNER' };
}

/**
 * The addressee as an active member. Under BLIND_EXPERIMENT a participant does not learn who else
 * participates (issue 40): another participant is answered exactly as a stranger is.
 */
async function requireAddressee(ex: Executor, author: Viewer, agentId: string) {
  const campaign = author.campaign;
  const [found] = await activeMembers(ex, campaign.id, [agentId]);
  const hidden =
    campaign.visibility === 'BLIND_EXPERIMENT' &&
    author.role === 'PARTICIPANT' &&
    found?.role === 'PARTICIPANT' &&
    found.agentId !== author.agentId;
  const member = hidden ? undefined : found;
  if (!member) {
    throw new DomainError(
      'RECIPIENT_NOT_MEMBER',
      `Agent ${agentId} is not an active member of campaign ${campaign.id}; a direct message must go to one.`,
      {
        addressed_to: agentId,
        campaign_id: campaign.id,
        next_step:
          'Check the agent id, or omit addressed_to to write to the whole campaign; a coordinator can invite the agent with campaign_invite.',
      },
    );
  }
  return member;
}

async function requireAddresseeSees(
  ex: Executor,
  addressee: { campaign: CampaignRow; agentId: string; role: 'COORDINATOR' | 'PARTICIPANT' },
  messageId: string,
) {
  if (await repo.findVisibleMessage(ex, addressee, messageId)) return;
  const mode = addressee.campaign.visibility;
  throw new DomainError(
    'RECIPIENT_CANNOT_SEE',
    `Agent ${addressee.agentId} could not read this message: the campaign's visibility mode ${mode} hides it from them.`,
    {
      addressed_to: addressee.agentId,
      visibility: mode,
      next_step:
        mode === 'BLIND_EXPERIMENT'
          ? "Under BLIND_EXPERIMENT participants do not see each other's messages; write to a coordinator instead."
          : 'Under TASK_SCOPED a participant sees only the tasks it is involved in; drop task_id or link a task they work on.',
    },
  );
}

/** The content as the tool schema would accept it, or VALIDATION_FAILED naming the limit. */
function parseContent(content: string): string {
  const parsed = messageContentArg.safeParse(content);
  if (parsed.success) return parsed.data;
  throw validationFailed(parsed.error.issues.map((i) => ({ ...i, path: ['content', ...i.path] })));
}

function invalidField(field: string, msg: string, type: string): DomainError {
  return new DomainError('VALIDATION_FAILED', `The ${field} of the message is not valid: ${msg}.`, {
    detail: [{ loc: ['body', field], msg, type }],
  });
}

function validationFailed(issues: z.core.$ZodIssue[]): DomainError {
  return new DomainError(
    'VALIDATION_FAILED',
    `The message is not valid: ${issues[0]?.message ?? 'invalid'}.`,
    {
      detail: toValidationDetail(issues, 'body'),
    },
  );
}
