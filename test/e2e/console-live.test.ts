import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, ok } from '../support/campaigns.ts';
import { Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 15 item 4: the campaign page's live stream, GET /console/campaigns/{id}/live (HTTP only). */

let server: TestServer;
let closed = false;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  if (!closed) await server?.close();
});

/** One SSE block: its fields, and any comment lines. */
interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

/** An open event stream read with fetch, its blocks parsed as they arrive. */
class Stream {
  readonly frames: Frame[] = [];
  ended = false;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly res: Response,
    private readonly abort: AbortController,
  ) {}

  static async open(path: string, headers: Record<string, string>): Promise<Stream> {
    const abort = new AbortController();
    const res = await fetch(`${server.url}${path}`, { headers, signal: abort.signal });
    const stream = new Stream(res, abort);
    if (res.ok) void stream.pump();
    return stream;
  }

  /** The first frame (from the start) that `match` accepts, within `ms`. */
  async next(match: (f: Frame) => boolean, ms = 2_000): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.ended) throw new Error(`stream ended without it: ${JSON.stringify(this.frames)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`not within ${ms} ms: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, left);
      });
    }
  }

  /** Ledger events received so far, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read into the event JSON
  events(): any[] {
    return this.frames.filter((f) => f.event === 'ledger').map((f) => JSON.parse(f.data ?? 'null'));
  }

  /** Resolves once the server has ended the stream (false if it has not within `ms`). */
  async end(ms = 1_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.ended;
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of this.res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          this.frames.push(parse(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
        }
        this.wake();
      }
    } catch {
      // Aborted by the test.
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

function parse(block: string): Frame {
  const frame: Frame = { comments: [] };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
    else {
      const at = line.indexOf(':');
      const field = line.slice(0, at) as 'id' | 'event' | 'data' | 'retry';
      frame[field] = line.slice(at + 1).replace(/^ /, '');
    }
  }
  return frame;
}

/** A signed-in owner with a coordinator agent of theirs and a campaign it created. */
async function ownerWithCampaign() {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  const coordinator = await newMember(server, email);
  const campaignId = await campaignWith(coordinator, []);
  return { email, visitor, coordinator, campaignId };
}

const cookieOf = (v: Visitor) => ({ cookie: [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ') });
const livePath = (id: string) => `/console/campaigns/${id}/live`;
const note = (m: Member, campaignId: string, content: string) =>
  ok(m, 'message_append', { campaign_id: campaignId, type: 'NOTE', content });

describe('GET /console/campaigns/{id}/live', () => {
  it('needs a signed-in owner (401) and the owner’s own campaign (404)', async () => {
    const { campaignId, coordinator } = await ownerWithCampaign();

    const anonymous = await Stream.open(livePath(campaignId), {});
    expect(anonymous.res.status).toBe(401);
    expect(anonymous.res.headers.get('www-authenticate')).toBe('Bearer realm="cairn-owner"');
    expect((await anonymous.res.json()).error.code).toBe('UNAUTHENTICATED');

    const badToken = await Stream.open(livePath(campaignId), {
      authorization: `Bearer cd_own_${'a'.repeat(52)}`,
    });
    expect(badToken.res.status).toBe(401);
    expect(badToken.res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await badToken.res.body?.cancel();

    // Another owner, even one whose agent is an active member of the campaign, does not see it.
    const other = await ownerWithCampaign();
    const stranger = await newMember(server, other.email);
    await ok(stranger, 'campaign_join', { campaign_id: campaignId });
    const foreign = await Stream.open(livePath(campaignId), cookieOf(other.visitor));
    expect(foreign.res.status).toBe(404);
    expect((await foreign.res.json()).error.code).toBe('NOT_FOUND');
    const malformed = await Stream.open(livePath('not-a-campaign'), cookieOf(other.visitor));
    expect(malformed.res.status).toBe(404);
    await malformed.res.body?.cancel();
    await coordinator.client.close();
    await stranger.client.close();
  });

  it('delivers an agent’s message as the page’s ledger row, with the seq as its id', async () => {
    const { visitor, coordinator, campaignId } = await ownerWithCampaign();
    const stream = await Stream.open(livePath(campaignId), cookieOf(visitor));
    try {
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(stream.res.headers.get('cache-control')).toBe('no-store, no-transform');
      const start = await stream.next((f) => f.retry !== undefined);
      expect(Number(start.retry)).toBeGreaterThan(0);

      const posted = await note(coordinator, campaignId, 'Curlews nest on the upper moor.');
      const frame = await stream.next((f) => f.event === 'ledger');
      expect(frame.id).toBe(String(posted.seq));
      // What the ledger row shows and which list to reload: no payload, content or owner id.
      expect(JSON.parse(frame.data ?? '')).toEqual({
        seq: posted.seq,
        at: expect.any(String),
        kind: 'MESSAGE_POSTED',
        actor: { name: 'Test agent', agent_id: coordinator.agentId, role: 'COORDINATOR' },
        task_id: null,
        sections: ['messages'],
      });
    } finally {
      stream.close();
      await coordinator.client.close();
    }
  });

  it('resumes after Last-Event-ID without repeats, and starts at ?after= on a first connection', async () => {
    const { visitor, coordinator, campaignId } = await ownerWithCampaign();
    const first = await note(coordinator, campaignId, 'First.');
    const second = await note(coordinator, campaignId, 'Second.');
    const third = await note(coordinator, campaignId, 'Third.');

    const resumed = await Stream.open(livePath(campaignId), {
      ...cookieOf(visitor),
      'last-event-id': String(first.seq),
    });
    const fromPage = await Stream.open(`${livePath(campaignId)}?after=${second.seq}`, cookieOf(visitor));
    // A reconnecting browser keeps the page's ?after= and adds Last-Event-ID: the header wins.
    const both = await Stream.open(`${livePath(campaignId)}?after=0`, {
      ...cookieOf(visitor),
      'last-event-id': String(second.seq),
    });
    try {
      await resumed.next((f) => f.id === String(third.seq));
      expect(resumed.events().map((e) => e.seq)).toEqual([second.seq, third.seq]);
      await fromPage.next((f) => f.id === String(third.seq));
      expect(fromPage.events().map((e) => e.seq)).toEqual([third.seq]);
      await both.next((f) => f.id === String(third.seq));
      expect(both.events().map((e) => e.seq)).toEqual([third.seq]);

      const bad = await Stream.open(livePath(campaignId), { ...cookieOf(visitor), 'last-event-id': 'x1' });
      expect(bad.res.status).toBe(400);
      await bad.res.body?.cancel();
    } finally {
      for (const s of [resumed, fromPage, both]) s.close();
      await coordinator.client.close();
    }
  });

  it('carries only that campaign’s events, direct messages included as on the page, and takes an owner API token', async () => {
    const { visitor, coordinator, campaignId } = await ownerWithCampaign();
    const worker = await newMember(server, coordinator.ownerEmail);
    await ok(worker, 'campaign_join', { campaign_id: campaignId });
    // The same owner's other campaign: its events never reach this campaign's stream.
    const elsewhere = await ok(coordinator, 'campaign_create', {
      title: 'Other',
      objective: 'Elsewhere.',
      allow_agent_publish: false,
      visibility: 'BLIND_EXPERIMENT',
      participation: 'OPEN',
    });
    const made = await visitor.api('POST', '/v1/owner/tokens', { name: 'live', days: 1 });
    const stream = await Stream.open(livePath(campaignId), { authorization: `Bearer ${made.body.token}` });
    try {
      expect(stream.res.status).toBe(200);
      await stream.next((f) => f.retry !== undefined);
      await note(coordinator, elsewhere.campaign_id, 'Not for that stream.');
      const direct = await ok(worker, 'message_send', {
        campaign_id: campaignId,
        to: coordinator.agentId,
        type: 'QUESTION',
        content: 'Private question.',
      });
      await stream.next((f) => f.id === String(direct.seq));
      const seen = stream.events();
      expect(seen.map((e) => e.seq)).toEqual([direct.seq]);
      expect(seen[0]).toMatchObject({ kind: 'MESSAGE_POSTED', actor: { agent_id: worker.agentId } });
      expect(JSON.stringify(seen)).not.toContain('Private question.');
    } finally {
      stream.close();
      await coordinator.client.close();
      await worker.client.close();
    }
  });

  it('ends a stream whose owner API token was revoked before sending it another event', async () => {
    const { visitor, coordinator, campaignId } = await ownerWithCampaign();
    const made = await visitor.api('POST', '/v1/owner/tokens', { name: 'live', days: 1 });
    const stream = await Stream.open(livePath(campaignId), { authorization: `Bearer ${made.body.token}` });
    try {
      await stream.next((f) => f.retry !== undefined);
      await visitor.api('POST', `/v1/owner/tokens/${made.body.token_id}/revoke`, {});
      await note(coordinator, campaignId, 'After the revocation.');
      expect(await stream.end(3_000)).toBe(true);
      expect(stream.events()).toEqual([]);
    } finally {
      stream.close();
      await coordinator.client.close();
    }
  });

  it('refuses a ninth live page of one owner with 429 and frees the place when one closes', async () => {
    const { visitor, coordinator, campaignId } = await ownerWithCampaign();
    const open: Stream[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        const s = await Stream.open(livePath(campaignId), cookieOf(visitor));
        expect(s.res.status).toBe(200);
        await s.next((f) => f.retry !== undefined);
        open.push(s);
      }
      const ninth = await Stream.open(livePath(campaignId), cookieOf(visitor));
      expect(ninth.res.status).toBe(429);
      const body = await ninth.res.json();
      expect(body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 8 } });
      expect(body.error.message).toContain('8 live console pages');

      open.shift()?.close();
      let again: Stream | undefined;
      // The server notices the closed connection on its next read or write; give it a moment.
      for (let i = 0; i < 20 && again?.res.status !== 200; i++) {
        await again?.res.body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
        again = await Stream.open(livePath(campaignId), cookieOf(visitor));
      }
      expect(again?.res.status).toBe(200);
      if (again) open.push(again);
    } finally {
      for (const s of open) s.close();
      await coordinator.client.close();
    }
  });

  // Last: it closes the file's server.
  it('ends open streams when the server closes, saying why, without holding the close', async () => {
    const { visitor, coordinator, campaignId } = await ownerWithCampaign();
    await coordinator.client.close();
    const stream = await Stream.open(livePath(campaignId), cookieOf(visitor));
    await stream.next((f) => f.retry !== undefined);
    const started = performance.now();
    closed = true;
    await server.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    const closing = await stream.next((f) => f.comments.some((c) => c.startsWith('closing')));
    expect(closing.comments[0]).toContain('shutting down');
    expect(closing.retry).toBe('1000');
    await expect(stream.end()).resolves.toBe(true);
  });
});
