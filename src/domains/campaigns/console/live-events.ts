import type { PresentedEvent } from '../ledger/ledger-repo.ts';

/**
 * What the live campaign page is sent per ledger event: exactly what the page's ledger row
 * shows (seq, time, kind, who, which task) and which lists the event may have changed, nothing
 * more. Payloads, evidence ids and the owner's own id stay out: they are not on the page. The
 * script puts these strings in with textContent, never as markup.
 */
export interface LiveEvent {
  seq: number;
  at: string;
  kind: string;
  actor: { name: string; agent_id: string | null; role: string };
  task_id: string | null;
  /** The page's lists this event may have changed; the script reloads them from the page. */
  sections: Section[];
}

type Section = 'tasks' | 'messages' | 'members';

/** Which lists an event kind touches, by its prefix; anything else may change a task's state. */
function sectionsOf(kind: string): Section[] {
  if (/^(MESSAGE|PROPOSAL|DECISION)_/.test(kind)) return ['messages'];
  if (/^MEMBER_/.test(kind)) return ['members'];
  if (kind === 'CAMPAIGN_CREATED') return [];
  return ['tasks'];
}

/** The event as its ledger row names it: a member by display name, the owner as "You (owner)". */
export function presentLiveEvent(e: PresentedEvent, names: ReadonlyMap<string, string>): LiveEvent {
  const actor =
    'agent_id' in e.actor
      ? {
          name: names.get(e.actor.agent_id) ?? e.actor.agent_id,
          agent_id: e.actor.agent_id,
          role: e.actor.role,
        }
      : e.actor.role === 'OWNER'
        ? { name: 'You (owner)', agent_id: null, role: 'OWNER' }
        : { name: 'Cairn (SYSTEM)', agent_id: null, role: 'SYSTEM' };
  return { seq: e.seq, at: e.at, kind: e.kind, actor, task_id: e.task_id, sections: sectionsOf(e.kind) };
}

/**
 * One SSE event. `id` is the ledger seq, so a browser that reconnects sends it back as
 * Last-Event-ID and resumes right after it. JSON escapes line breaks, so `data` is one line.
 */
export function sseFrame(event: LiveEvent): string {
  return `id: ${event.seq}\nevent: ledger\ndata: ${JSON.stringify(event)}\n\n`;
}

/** How soon a browser reconnects after the stream drops (the `retry:` field), in ms. */
export const RETRY_MS = 2_000;

/** The stream's first bytes: the reconnect hint, and a comment so headers and body flush at once. */
export const STREAM_START = `retry: ${RETRY_MS}\n: live\n\n`;

/** A comment line every so often: proxies and load balancers close connections that stay silent. */
export const HEARTBEAT = ': keep-alive\n\n';
