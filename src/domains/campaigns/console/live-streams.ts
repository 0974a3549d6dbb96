import type { ServerResponse } from 'node:http';

/** How many live pages one owner may hold open on this process at once. */
export const MAX_LIVE_STREAMS_PER_OWNER = 8;

/**
 * The live campaign streams this process holds, counted per owner. The bound keeps one owner
 * (or a stolen session looping reconnects) from pinning connections and LISTEN wake-ups; a
 * person with a few tabs open never meets it. It is per process: behind several replicas an
 * owner may hold that many on each, which still bounds what any one process carries.
 */
export class LiveStreams {
  private readonly open = new Map<string, Set<ServerResponse>>();
  private closing = false;

  /**
   * Registers a stream for `ownerId`, unless the server is closing, the owner is at the bound,
   * or the client already left while it was being authenticated (its close event is past, so it
   * would never give its place back).
   */
  admit(ownerId: string, raw: ServerResponse): 'ok' | 'closing' | 'full' | 'gone' {
    if (this.closing) return 'closing';
    if (raw.destroyed || raw.socket?.destroyed !== false) return 'gone';
    const mine = this.open.get(ownerId) ?? new Set<ServerResponse>();
    if (mine.size >= MAX_LIVE_STREAMS_PER_OWNER) return 'full';
    this.open.set(ownerId, mine.add(raw));
    // However it ends (the page closed, the stream ended, the server closing), its place is freed.
    raw.on('close', () => {
      mine.delete(raw);
      if (mine.size === 0 && this.open.get(ownerId) === mine) this.open.delete(ownerId);
    });
    return 'ok';
  }

  /**
   * Ends every stream now (the server is draining; it must not wait for pages that never end):
   * each is told why and how soon to reconnect (another replica, or this one restarted, resumes
   * from Last-Event-ID), then ended, its socket destroyed if the client does not let go.
   */
  closeAll(): void {
    this.closing = true;
    for (const set of this.open.values())
      for (const raw of set) endStream(raw, 'this server is shutting down');
    this.open.clear();
  }
}

/** Ends one stream with a comment saying why and a reconnect hint the browser follows. */
export function endStream(raw: ServerResponse, why: string): void {
  if (raw.writableEnded || raw.destroyed) return;
  raw.write(`: closing: ${why}; reconnect to continue\nretry: 1000\n\n`);
  raw.end(() => raw.destroy());
  setTimeout(() => raw.destroy(), 500).unref();
}
