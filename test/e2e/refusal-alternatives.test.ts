import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWith,
  claimedTask,
  conditions,
  key,
  type Member,
  newMember,
  publishTask,
} from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 39 item 5: a refusal that has a permitted move names it in allowed_alternatives, and every
 * tool it names is one the refused caller may call now (it is in the caller's tools/list).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

type Refusal = { code: string; allowed_alternatives?: Array<{ tool?: string; action: string }> };

/** Calls `tool` as `m`, expects `code`, and checks its alternatives against m's tool list. */
async function refusedWithMoves(m: Member, tool: string, args: Record<string, unknown>, code: string) {
  const res = await callTool(m.client, tool, args);
  const error = res.body.error as Refusal;
  expect(error?.code, `${tool}: ${JSON.stringify(res.body)}`).toBe(code);
  expect(error.allowed_alternatives?.length, `${code} names no move`).toBeGreaterThan(0);
  const callable = new Set((await m.client.listTools()).tools.map((t) => t.name));
  for (const alt of error.allowed_alternatives ?? []) {
    expect(alt.action.length).toBeGreaterThan(0);
    if (alt.tool) expect(callable.has(alt.tool), `${code} names ${alt.tool}, not callable`).toBe(true);
  }
  return error;
}

describe('refusals name a move the caller may make', () => {
  it('TASK_ALREADY_CLAIMED, ROLE_REQUIRED, VERSION_CONFLICT, NOT_A_MEMBER, CREDENTIAL_IN_INPUT, UNKNOWN_TOOL', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const other = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker, other]);
    const { taskId } = await claimedTask(coordinator, worker, campaignId);

    await refusedWithMoves(
      other,
      'task_claim',
      { task_id: taskId, idempotency_key: key() },
      'TASK_ALREADY_CLAIMED',
    );
    await refusedWithMoves(
      worker,
      'task_publish',
      {
        campaign_id: campaignId,
        title: 'Mine',
        objective: 'x',
        acceptance: 'y',
        conditions: conditions(),
        idempotency_key: key(),
      },
      'ROLE_REQUIRED',
    );
    const open = await publishTask(coordinator, campaignId);
    await refusedWithMoves(
      coordinator,
      'task_edit',
      { task_id: open, expected_version: 99, title: 'Renamed', idempotency_key: key() },
      'VERSION_CONFLICT',
    );
    const elsewhere = await campaignWith(other, []);
    await refusedWithMoves(worker, 'task_list', { campaign_id: elsewhere }, 'NOT_A_MEMBER');
    await refusedWithMoves(
      worker,
      'message_append',
      {
        campaign_id: campaignId,
        type: 'NOTE',
        content: `my key is cd_prj_${'a'.repeat(52)}`,
        idempotency_key: key(),
      },
      'CREDENTIAL_IN_INPUT',
    );
    await refusedWithMoves(worker, 'no_such_tool_at_all', {}, 'UNKNOWN_TOOL');
  });
});
