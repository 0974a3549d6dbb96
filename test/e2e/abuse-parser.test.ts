import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Member, newMember } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { ownerTokenOf } from '../support/owner-api.ts';
import { ownerImport } from '../support/research.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 40, standing abuse suite: one tenant floods the shared parser through fetch_text, with
 * pages that cost seconds each and depth bombs, while another owner's agent reads. The other
 * read must succeed, not DEGRADED_MODE: the flood keeps to its owner's share of the pool.
 */

let site: FixtureSite;
let server: TestServer;
beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({
    env: { ...site.env, CAIRN_PARSER_JOBS: '2', CAIRN_PARSER_QUEUE: '4', CAIRN_FETCH_TIMEOUT_SECONDS: '20' },
  });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

const read = (m: Member, path: string) =>
  callTool(m.client, 'fetch_text', { url: `${site.origin}${path}`, declared_purpose: 'Abuse test.' });

describe('a flood of costly reads by one tenant', () => {
  it("leaves another owner's read its thread: it succeeds while the flood is told its own share is used", async () => {
    const attacker = await newMember(server);
    const victim = await newMember(server);
    // The attacking owner's own evidence, to look into from the console while its agent floods.
    const attackerToken = await ownerTokenOf(server, attacker);
    const own = await ownerImport(server, attacker, { format: 'text', text: 'Cairns mark the trail.' });
    // Six heavy pages and six depth bombs at once, all from one owner's agent.
    const flood = Promise.all([
      ...Array.from({ length: 6 }, (_, i) => read(attacker, `/heavy?n=${i}`)),
      ...Array.from({ length: 6 }, (_, i) => read(attacker, `/nest?n=${i}`)),
    ]);
    // The flood is caught whatever happens below, so a failure cannot leave it running unheard.
    flood.catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    const mine = await read(victim, '/article');
    expect(mine.isError, JSON.stringify(mine.body)).toBe(false);
    // The console's work is its owner's too: the flooding owner's own quote search waits on its
    // own share (it used to run untenanted, beside the flood).
    const locate = await fetch(`${server.url}/v1/research/evidence/${own}/locate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${attackerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ quote: 'mark the trail' }),
    });
    const located = (await locate.json()) as { error?: { code: string; details: { share: string } } };
    expect(locate.status, JSON.stringify(located)).toBe(503);
    expect(located.error).toMatchObject({ code: 'DEGRADED_MODE', details: { share: 'OWNER' } });
    expect(mine.body.observation.text).toContain('Cairns have marked mountain trails');
    const outcomes = await flood;
    const refused = outcomes.filter((o) => o.isError).map((o) => o.body.error);
    // The flood's excess is its own share being full, never the instance's (a heavy page may
    // also run past its 10 s on a loaded machine: DOCUMENT_TOO_COMPLEX, its own cost).
    const degraded = refused.filter((e) => e.code === 'DEGRADED_MODE');
    expect(degraded.length).toBeGreaterThan(0);
    for (const error of degraded) expect(error.details.share).toBe('OWNER');
    for (const error of refused) expect(['DEGRADED_MODE', 'DOCUMENT_TOO_COMPLEX']).toContain(error.code);
    // The depth bombs that got a thread were read in full, quickly, not cut off.
    const bombs = outcomes.slice(6).filter((o) => !o.isError);
    for (const bomb of bombs) expect(bomb.body.observation.text).toContain('Nested note.');
  });
});
