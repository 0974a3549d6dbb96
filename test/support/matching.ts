import { expect } from 'vitest';
import { type Member, newMember, ok } from './campaigns.ts';
import { ownerApi, ownerTokenOf } from './owner-api.ts';
import type { TestServer } from './test-server.ts';

/** Helpers for matching tests: agents whose owner turned matching on, and campaign calls. */

export interface MatchingMember extends Member {
  /** The owner API token of the agent's owner. */
  ownerToken: string;
}

/** A READ agent (of a new owner, or of `ownerEmail`) with matching turned on by its owner. */
export async function matchingMember(
  server: TestServer,
  opts: { ownerEmail?: string; public?: boolean } = {},
): Promise<MatchingMember> {
  const m = await newMember(server, opts.ownerEmail);
  const ownerToken = await ownerTokenOf(server, m);
  const consent = await ownerApi(server, ownerToken, 'POST', `/v1/agents/${m.agentId}/matching`, {
    enabled: true,
    public: opts.public ?? false,
  });
  expect(consent.status, JSON.stringify(consent.body)).toBe(200);
  return { ...m, ownerToken };
}

export const callFields = (topic: string) => ({
  alias: 'Moorland survey team',
  topic,
  help_offered: 'We need someone to read bird atlases and quote them.',
  effort: 'a few hours',
  availability: 'this week',
});

/** Opens the coordinator's campaign to applications; answers the call's intent. */
export async function openCall(
  server: TestServer,
  coordinator: MatchingMember,
  campaignId: string,
  topic: string,
  extra: Record<string, unknown> = {},
) {
  const res = await ownerApi(
    server,
    coordinator.ownerToken,
    'PUT',
    `/v1/campaigns/${campaignId}/matching-application`,
    { ...callFields(topic), ...extra },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.application as { intent_id: string; application_ref: string };
}

/** An application to a campaign's call through matching_interest; answers the request as made. */
export async function applyTo(
  applicant: Member,
  call: { intent_id: string; application_ref: string },
  reason = 'Hello.',
) {
  return ok(applicant, 'matching_interest', {
    intent_id: call.intent_id,
    reason,
    task_ref: call.application_ref,
  });
}
