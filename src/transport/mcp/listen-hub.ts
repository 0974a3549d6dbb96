import type { FastifyReply } from 'fastify';
import type { Caller, IdentityService } from '../../domains/identity/index.ts';
import { DomainError } from '../../kernel/errors.ts';
import { isDatabaseUnavailable } from '../../storage/unavailable.ts';
import { META, type RpcId } from './modern-request.ts';

/**
 * `subscriptions/listen` (MCP 2026-07-28): the one long-lived channel of the stateless
 * revision. A listen is a POST answered with an event stream; its JSON-RPC id is its
 * subscription id, and every notification on it carries that id. Nothing is queued for it: a
 * listen hears what changes while it is open, and a client that reconnects re-reads the lists
 * (their caching hints say for how long a copy is good).
 *
 * What can change: the caller's tool list (a mode, a grant, an Arena assignment). The same
 * wake that reaches the 2025-era session streams (NOTIFY on the agent's channel, from any
 * replica) makes each of the agent's listens re-authenticate with the credential it opened
 * with and compare the tool list it would now get with the one it last announced: a
 * `notifications/tools/list_changed` goes out only when they differ, and a credential that no
 * longer authenticates ends the stream (the client's reconnect then meets the 401 challenge).
 */

/** How often an open listen sends a keep-alive and re-checks, whatever NOTIFY said. */
const SWEEP_MS = 20_000;

/** The notification kinds a listen may ask for, and whether this server sends each. */
const HONOURED = { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false } as const;

export interface ListenFilter {
  toolsListChanged: boolean;
}

interface Listen {
  id: RpcId;
  agentId: string;
  /** The credential the listen was opened with, kept in memory only, to re-check it. */
  bearer: string;
  filter: ListenFilter;
  /** The tool list last announced (as tools/list would answer it). */
  fingerprint: string;
  reply: FastifyReply;
}

export class ListenHub {
  private readonly listens = new Set<Listen>();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly identity: IdentityService,
    /** The caller's tool list in a comparable form. */
    private readonly fingerprint: (caller: Caller) => string,
  ) {}

  start(): void {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * The subset of a requested filter this server honours, as the acknowledgement names it:
   * only the kinds asked for and sent here (no prompts; the resource list never changes).
   */
  static honoured(requested: Record<string, unknown>): Record<string, boolean> {
    const subset: Record<string, boolean> = {};
    for (const [kind, sent] of Object.entries(HONOURED))
      if (sent && requested[kind] === true) subset[kind] = true;
    return subset;
  }

  /**
   * Takes over a hijacked reply whose stream headers are sent: acknowledges the listen first
   * (nothing may come before it), then holds it until the client goes or the server stops.
   */
  open(
    caller: Caller,
    bearer: string,
    id: RpcId,
    requested: Record<string, unknown>,
    reply: FastifyReply,
  ): void {
    const raw = reply.raw;
    if (this.stopped || raw.destroyed) {
      raw.destroy();
      return;
    }
    const honoured = ListenHub.honoured(requested);
    const listen: Listen = {
      id,
      agentId: caller.agent.id,
      bearer,
      filter: { toolsListChanged: honoured.toolsListChanged === true },
      fingerprint: this.fingerprint(caller),
      reply,
    };
    this.listens.add(listen);
    raw.on('close', () => this.listens.delete(listen));
    this.send(listen, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: honoured, _meta: { [META.subscriptionId]: id } },
    });
  }

  /** Wakes the listens of an agent whose tools may have changed (or whose credential went). */
  wake(agentId: string): void {
    for (const l of this.listens) if (l.agentId === agentId) void this.check(l);
  }

  /**
   * Ends every listen gracefully: the listen request's own response (a complete result with
   * its subscription id), then the stream. The client reconnects to another replica.
   */
  stop(): void {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const l of this.listens) {
      const raw = l.reply.raw;
      if (raw.writable) {
        this.send(l, {
          jsonrpc: '2.0',
          id: l.id,
          result: { resultType: 'complete', _meta: { [META.subscriptionId]: l.id } },
        });
      }
      raw.end(() => raw.destroy());
      setTimeout(() => raw.destroy(), 500).unref();
    }
    this.listens.clear();
  }

  private sweep(): void {
    for (const l of this.listens) {
      // An SSE comment: clients ignore it, proxies see the stream is alive.
      if (l.reply.raw.writable) l.reply.raw.write(':\n\n');
      void this.check(l);
    }
  }

  private async check(listen: Listen): Promise<void> {
    const raw = listen.reply.raw;
    if (raw.destroyed || raw.writableEnded) return;
    let caller: Caller;
    try {
      caller = (await this.identity.authenticate(listen.bearer)).caller;
    } catch (err) {
      if (!(err instanceof DomainError) || err.code === 'SERVICE_UNAVAILABLE') {
        // The database away, or a fault of ours: the credential is not known to be bad.
        const why = isDatabaseUnavailable(err) ? 'the database is away' : 'unexpected error';
        listen.reply.log.warn(`listen re-check failed (${why}); the sweep retries`);
        return;
      }
      // Revoked, expired, or its identity revoked: the stream lives no longer than its credential.
      this.listens.delete(listen);
      raw.destroy();
      return;
    }
    const now = this.fingerprint(caller);
    if (now === listen.fingerprint) return;
    listen.fingerprint = now;
    if (listen.filter.toolsListChanged) {
      this.send(listen, {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [META.subscriptionId]: listen.id } },
      });
    }
  }

  private send(listen: Listen, message: unknown): void {
    const raw = listen.reply.raw;
    if (raw.writable) raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
}
