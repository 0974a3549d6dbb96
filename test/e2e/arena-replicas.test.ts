import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'drizzle-orm';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember } from '../support/arena.ts';
import { key } from '../support/campaigns.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { ownerApi } from '../support/owner-api.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Arena runs over two `cairn serve` processes on one PostgreSQL database (this file's own;
 * skipped without TEST_DATABASE_URL). Owners, identities and the Arena switch are set up through
 * an in-process server on the same data; every raced or cross-replica call goes to the replicas.
 *
 * 1. 20 concurrent `POST /v1/arena/assignments` for one identity, 10 through each replica: one
 *    201, 19 × 409 ARENA_ASSIGNMENT_CURRENT naming the winner's assignment and run, and the
 *    owner's list (on either replica) and the table hold one run. Fails without the partial
 *    unique index arena_run_members_one_current (the pre-check reads a snapshot that cannot see
 *    a racing winner, so several are created). Fails if a loser that met the winner only on the
 *    index answered without naming the run (it must look the current assignment up again).
 * 2. The identity, with an MCP session on each replica, races arena_start (different
 *    idempotency keys) once through each, for several identities: one start, the other
 *    409 ARENA_RUN_ACTIVE naming the run. Fails if startRun locked only the run row: a start
 *    that waited for the winner's lock re-reads the run (now RUNNING) but keeps the member row of
 *    its old snapshot (not started), so it "starts" again and both answer success.
 * 3. A score signed on replica A (result_verify with run_id) verifies with jose against
 *    `/.well-known/jwks.json` fetched from replica B: the replicas share the key (in the
 *    database, sealed with the shared secret); both publish the same set.
 * 4. A workspace file written on A is read back on B, a sandbox.exec on B sees it, and a file the
 *    program writes on B is read back on A.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let own: OwnDatabase;
let setup: TestServer;
let a: Replica;
let b: Replica;

// biome-ignore lint/suspicious/noExplicitAny: the test reads into arbitrary JSON answers
type Json = Record<string, any>;

const clients: Client[] = [];

beforeAll(async () => {
  if (!url) return;
  own = await ownDatabase('cairn_arena_rep', url, 4);
  setup = await startTestServer({ database: own.database, env: { CAIRN_SECRET: secret } });
  [a, b] = (await Promise.all([startReplica(own.url, secret), startReplica(own.url, secret)])) as [
    Replica,
    Replica,
  ];
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all([a?.stop(2_000), b?.stop(2_000)]);
  await setup?.close();
  await own?.drop();
});

/** An identity with the Arena on, set up in process (its in-process session closed after the file). */
async function member(): Promise<ArenaMember> {
  const m = await arenaMember(setup);
  clients.push(m.client);
  return m;
}

/** An MCP session of `m` on `replica` (closed after the file). */
async function on(replica: Replica, m: ArenaMember): Promise<Client> {
  const client = await connectClient(replica.url, m.key);
  clients.push(client);
  return client;
}

async function mustAnswer(client: Client, tool: string, args: Record<string, unknown>): Promise<Json> {
  // The workspace-changing tools take an idempotency_key like every mutating tool.
  const keyed = ['workspace.write', 'workspace.delete', 'sandbox.exec'].includes(tool);
  const r = await callTool(client, tool, keyed ? { ...args, idempotency_key: key() } : args);
  expect(r.isError, `${tool}: ${JSON.stringify(r.body)}`).toBe(false);
  return r.body;
}

/** The owner assigns `challengeId` to `m` through `replica` (201 expected). */
async function assignOn(replica: Replica, m: ArenaMember, challengeId: string): Promise<Json> {
  const res = await ownerApi(replica, m.ownerToken, 'POST', '/v1/arena/assignments', {
    agent_id: m.agentId,
    challenge_id: challengeId,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The arena_start arguments capabilities_describe shows `client`'s identity. */
async function startArguments(client: Client): Promise<Json> {
  const caps = await mustAnswer(client, 'capabilities_describe', {});
  const args = caps.arena_assignment?.arena_start?.arguments;
  expect(args, JSON.stringify(caps.arena_assignment)).toBeDefined();
  return args;
}

/** Assigns `challengeId` through `replica` and starts it there; returns the session and run id. */
async function startedOn(replica: Replica, m: ArenaMember, challengeId: string) {
  await assignOn(replica, m, challengeId);
  const client = await on(replica, m);
  const started = await mustAnswer(client, 'arena_start', {
    ...(await startArguments(client)),
    idempotency_key: key(),
  });
  expect(started.state).toBe('RUNNING');
  return { client, runId: started.run_id as string };
}

describe.skipIf(!url)('Arena runs on two replicas', () => {
  it('20 concurrent assignments for one identity over two replicas: one 201, 19 × ARENA_ASSIGNMENT_CURRENT naming its run', async () => {
    const m = await member();
    const began = performance.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ownerApi(i % 2 === 0 ? a : b, m.ownerToken, 'POST', '/v1/arena/assignments', {
          agent_id: m.agentId,
          challenge_id: 'reconcile-sources',
        }),
      ),
    );
    const raced = performance.now() - began;
    const summary = JSON.stringify(results.map((r) => [r.status, r.body.error?.code, r.body.error?.details]));
    const created = results.filter((r) => r.status === 201);
    expect(created, summary).toHaveLength(1);
    const won = (created[0] as { body: Json }).body;
    expect(won).toMatchObject({ run_id: expect.stringMatching(/^arun_/), state: 'ASSIGNED' });
    const assignmentId = won.assignments[0].assignment_id as string;
    const refusals = results.filter((r) => r.status !== 201);
    expect(
      refusals.map((r) => r.status),
      summary,
    ).toEqual(Array(19).fill(409));
    for (const r of refusals) {
      expect(r.body.error, summary).toMatchObject({
        code: 'ARENA_ASSIGNMENT_CURRENT',
        details: { agent_id: m.agentId, assignment_id: assignmentId, run_id: won.run_id },
      });
    }
    // The owner's list, through either replica, and the table: one run, one member row.
    for (const replica of [a, b]) {
      const listed = await ownerApi(replica, m.ownerToken, 'GET', `/v1/arena/runs?agent_id=${m.agentId}`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(listed.body.runs.map((r: Json) => r.run_id)).toEqual([won.run_id]);
      expect(listed.body.runs[0]).toMatchObject({ state: 'ASSIGNED', members: [{ agent_id: m.agentId }] });
    }
    const stored = await own.audit<{ run_id: string; current: boolean }>(
      sql`select run_id, current from arena_run_members where agent_id = ${m.agentId}`,
    );
    expect(stored).toEqual([{ run_id: won.run_id, current: true }]);
    console.info(`[arena-replicas] 20 assignments raced over two replicas in ${Math.round(raced)} ms`);
  }, 120_000);

  it('arena_start raced from a session on each replica: one start, the other ARENA_RUN_ACTIVE naming the run', async () => {
    const rounds = 6;
    let spent = 0;
    for (let round = 0; round < rounds; round++) {
      const m = await member();
      const assigned = await assignOn(round % 2 === 0 ? a : b, m, 'reconcile-sources');
      const [onA, onB] = await Promise.all([on(a, m), on(b, m)]);
      const args = await startArguments(onA);
      const began = performance.now();
      const results = await Promise.all(
        [onA, onB].map((client) => callTool(client, 'arena_start', { ...args, idempotency_key: key() })),
      );
      spent += performance.now() - began;
      const summary = JSON.stringify(results.map((r) => (r.isError ? r.body.error : r.body.run_id)));
      const started = results.filter((r) => !r.isError);
      expect(started, summary).toHaveLength(1);
      const run = (started[0] as { body: Json }).body;
      expect(run).toMatchObject({ run_id: assigned.run_id, state: 'RUNNING', role: 'A' });
      const refused = (results.find((r) => r.isError) as { body: Json }).body.error;
      expect(refused, summary).toMatchObject({
        code: 'ARENA_RUN_ACTIVE',
        details: { run_id: assigned.run_id, state: 'RUNNING', deadline: run.deadline },
      });
      // Both sessions see the run going, with the winner's deadline.
      for (const client of [onA, onB]) {
        const caps = await mustAnswer(client, 'capabilities_describe', {});
        expect(caps.arena_assignment).toMatchObject({
          run_id: assigned.run_id,
          state: 'RUNNING',
          deadline: run.deadline,
        });
      }
    }
    console.info(
      `[arena-replicas] ${rounds} arena_start races over two replicas, ${Math.round(spent / rounds)} ms each on average`,
    );
  }, 120_000);

  it("a score signed on replica A verifies against replica B's JWKS", async () => {
    const m = await member();
    const { client, runId } = await startedOn(a, m, 'reconcile-sources');
    await mustAnswer(client, 'artifact_submit', {
      run_id: runId,
      name: 'finding.json',
      content: '{}',
      idempotency_key: key(),
    });
    const verified = await mustAnswer(client, 'result_verify', { run_id: runId, idempotency_key: key() });
    expect(typeof verified.signed_score, JSON.stringify(verified)).toBe('string');

    const jwksOf = async (replica: Replica) => {
      const res = await fetch(`${replica.url}/.well-known/jwks.json`);
      expect(res.status).toBe(200);
      return (await res.json()) as { keys: Json[] };
    };
    const [fromA, fromB] = await Promise.all([jwksOf(a), jwksOf(b)]);
    expect(fromB.keys.length).toBeGreaterThanOrEqual(1);
    expect(fromB).toEqual(fromA);
    const { payload, protectedHeader } = await compactVerify(
      verified.signed_score,
      createLocalJWKSet(fromB as never),
    );
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'cairn-score+jws' });
    expect(fromB.keys.map((k) => k.kid)).toContain(protectedHeader.kid);
    const signed = JSON.parse(new TextDecoder().decode(payload));
    expect(signed).toMatchObject({
      run_id: runId,
      challenge_id: 'reconcile-sources',
      score: verified.score,
      max_score: verified.max_score,
    });
    // The owner reads the same signature through replica B.
    const listed = await ownerApi(b, m.ownerToken, 'GET', `/v1/arena/runs?agent_id=${m.agentId}`);
    expect(listed.body.runs[0]).toMatchObject({
      run_id: runId,
      state: 'VERIFIED',
      signed_score: verified.signed_score,
    });
  }, 120_000);

  it('a workspace written on replica A is read on B, sandbox.exec on B sees it, and A reads what it wrote', async () => {
    const m = await member();
    const { client: onA, runId } = await startedOn(a, m, 'fix-failing-program');
    const onB = await on(b, m);
    const note = `written on A ${randomBytes(6).toString('hex')}`;
    await mustAnswer(onA, 'workspace.write', { run_id: runId, path: 'notes/from-a.txt', content: note });
    await mustAnswer(onA, 'workspace.write', {
      run_id: runId,
      path: 'probe.js',
      content: [
        "const text = sandbox.readFile('notes/from-a.txt');",
        "console.log('saw: ' + text);",
        "sandbox.writeFile('notes/from-b.txt', 'sandbox on B saw: ' + text);",
      ].join('\n'),
    });

    const read = await mustAnswer(onB, 'workspace.read', { run_id: runId, path: 'notes/from-a.txt' });
    expect(read.content).toBe(note);
    const listed = await mustAnswer(onB, 'workspace.list', { run_id: runId });
    expect(listed.files.map((f: Json) => f.path)).toEqual(
      expect.arrayContaining(['notes/from-a.txt', 'probe.js', 'src/calc.js']),
    );

    const ran = await mustAnswer(onB, 'sandbox.exec', { run_id: runId, command: 'probe.js' });
    expect(ran, JSON.stringify(ran)).toMatchObject({ exit_code: 0, changed_files: ['notes/from-b.txt'] });
    expect(ran.stdout).toBe(`saw: ${note}\n`);

    const back = await mustAnswer(onA, 'workspace.read', { run_id: runId, path: 'notes/from-b.txt' });
    expect(back.content).toBe(`sandbox on B saw: ${note}`);
  }, 120_000);
});
