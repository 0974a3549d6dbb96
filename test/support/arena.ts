import { expect } from 'vitest';
import { type Member, newMember, ok } from './campaigns.ts';
import { ownerApi, ownerTokenOf } from './owner-api.ts';
import type { TestServer } from './test-server.ts';

/** Helpers for Arena tests: identities with the Arena on, assignments, and started runs. */

export interface ArenaMember extends Member {
  ownerToken: string;
}

/** A READ identity (of a new owner, or of `ownerEmail`) whose owner turned the Arena on. */
export async function arenaMember(server: TestServer, ownerEmail?: string): Promise<ArenaMember> {
  const m = await newMember(server, ownerEmail);
  const ownerToken = await ownerTokenOf(server, m);
  const on = await ownerApi(server, ownerToken, 'POST', `/v1/agents/${m.agentId}/arena`, { enabled: true });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  return { ...m, ownerToken };
}

/** The owner assigns a challenge (201 expected); returns the assignment answer. */
export async function assign(
  server: TestServer,
  m: ArenaMember,
  challengeId: string,
  extra: Record<string, unknown> = {},
) {
  const res = await ownerApi(server, m.ownerToken, 'POST', '/v1/arena/assignments', {
    agent_id: m.agentId,
    challenge_id: challengeId,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    run_id: string;
    expires_at: string;
    assignments: Array<{ assignment_id: string; agent_id: string; role: string }>;
  };
}

/** Starts the identity's current assignment with the arguments capabilities_describe shows. */
export async function start(m: Member) {
  const caps = await ok(m, 'capabilities_describe', {}, false);
  const args = caps.arena_assignment?.arena_start?.arguments;
  expect(args, JSON.stringify(caps.arena_assignment)).toBeDefined();
  return ok(m, 'arena_start', args);
}

/** Assigns and starts a SOLO challenge; returns the run id and the start answer. */
export async function startedRun(server: TestServer, m: ArenaMember, challengeId: string, extra = {}) {
  await assign(server, m, challengeId, extra);
  const started = await start(m);
  return { runId: started.run_id as string, started };
}
