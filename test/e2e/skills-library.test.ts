import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { campaignContext, publishSkill } from '../support/skills.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 20 item 6: a campaign's skill library. A member proposes a version of its own owner's
 * account, a coordinator (or the campaign's owner) decides; accepted entries are what context
 * CAMPAIGN gives members; every change is a ledger event the members see.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

interface LedgerEvent {
  kind: string;
  [key: string]: unknown;
}

async function ledger(m: Member, campaignId: string): Promise<LedgerEvent[]> {
  const watched = await ok(
    m,
    'events_watch',
    { campaign_id: campaignId, wait_seconds: 1, limit: 200 },
    false,
  );
  return watched.events as LedgerEvent[];
}

const mentioning = (events: LedgerEvent[], kind: string, id: string) =>
  events.filter((e) => e.kind === kind && JSON.stringify(e).includes(id));

/** A coordinator, two participants and a stranger, in a new campaign. */
async function crew() {
  const coordinator = await newMember(server);
  const proposer = await newMember(server);
  const other = await newMember(server);
  const stranger = await newMember(server);
  const campaignId = await campaignWith(coordinator, [proposer, other]);
  // Both coordinate a campaign of their own, so every library and attachment tool is offered to
  // them (SKILLS_COORDINATOR_AUDIENCE): what refuses them here is their standing in this campaign.
  await campaignWith(other, []);
  await campaignWith(stranger, []);
  return { coordinator, proposer, other, stranger, campaignId };
}

describe('campaign library through the tools', () => {
  it('proposes, accepts, updates and removes, each a ledger event another member sees', async () => {
    const { coordinator, proposer, other, campaignId } = await crew();
    // A participant is offered the library tools but not the coordinators' decision.
    const offered = (await proposer.client.listTools()).tools.map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['campaign_skill_propose', 'task_skill_attach']));
    expect(offered).not.toContain('campaign_skill_decide');
    const { versionId } = await publishSkill(proposer);
    const ctx = campaignContext(campaignId);

    const proposed = await ok(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
      note: 'Use it for quotations.',
    });
    expect(proposed.state).toBe('PROPOSED');
    expect(proposed.proposed_by).toBe(proposer.agentId);
    expect(proposed.next).toContain('campaign_skill_decide');
    const entryId = proposed.entry_id as string;

    // Not in the library until accepted.
    expect((await refused(other, 'skill_get', { version_id: versionId, context: ctx }, false)).code).toBe(
      'SKILL_CONTEXT_DENIED',
    );
    const again = await refused(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
    });
    expect(again.code).toBe('CONFLICT');
    expect(again.details.entry_id).toBe(entryId);

    const byParticipant = await refused(other, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: entryId,
      decision: 'ACCEPT',
    });
    expect(byParticipant.code).toBe('ROLE_REQUIRED');
    const accepted = await ok(coordinator, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: entryId,
      decision: 'ACCEPT',
      reason: 'Fits the survey.',
    });
    expect(accepted.state).toBe('ACCEPTED');
    expect(accepted.decided_by).toBe(coordinator.agentId);

    const listed = await ok(other, 'skill_list', { context: ctx }, false);
    expect(listed.versions.map((v: { version_id: string }) => v.version_id)).toContain(versionId);
    const got = await ok(other, 'skill_get', { version_id: versionId, context: ctx }, false);
    expect(got.access).toBe('CAMPAIGN');

    expect(
      (
        await refused(other, 'campaign_skill_update', {
          campaign_id: campaignId,
          entry_id: entryId,
          note: 'Mine now.',
        })
      ).code,
    ).toBe('ROLE_REQUIRED');
    const updated = await ok(proposer, 'campaign_skill_update', {
      campaign_id: campaignId,
      entry_id: entryId,
      note: 'Use it for every quotation.',
    });
    expect(updated.note).toBe('Use it for every quotation.');

    // The proposer may withdraw only a PROPOSED entry of its own; this one was accepted.
    expect(
      (await refused(proposer, 'campaign_skill_remove', { campaign_id: campaignId, entry_id: entryId })).code,
    ).toBe('ROLE_REQUIRED');
    const removed = await ok(coordinator, 'campaign_skill_remove', {
      campaign_id: campaignId,
      entry_id: entryId,
      reason: 'Superseded.',
    });
    expect(removed.state).toBe('REMOVED');
    expect((await refused(other, 'skill_get', { version_id: versionId, context: ctx }, false)).code).toBe(
      'SKILL_CONTEXT_DENIED',
    );

    const events = await ledger(other, campaignId);
    for (const kind of ['SKILL_PROPOSED', 'SKILL_ACCEPTED', 'SKILL_UPDATED', 'SKILL_REMOVED']) {
      expect(mentioning(events, kind, entryId), `${kind} in ${JSON.stringify(events)}`).toHaveLength(1);
    }
    expect(JSON.stringify(mentioning(events, 'SKILL_ACCEPTED', entryId))).toContain(coordinator.agentId);
  });

  it('declines, lets the proposer propose again and withdraw its own proposal', async () => {
    const { coordinator, proposer, other, campaignId } = await crew();
    const { versionId } = await publishSkill(proposer);
    const first = await ok(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
    });
    const declined = await ok(coordinator, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: first.entry_id,
      decision: 'DECLINE',
      reason: 'Not for this survey.',
    });
    expect(declined.state).toBe('DECLINED');
    const twice = await refused(coordinator, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: first.entry_id,
      decision: 'ACCEPT',
    });
    expect(twice.code).toBe('CONFLICT');
    expect(twice.details.state).toBe('DECLINED');

    const second = await ok(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
    });
    expect(second.entry_id).not.toBe(first.entry_id);
    expect(
      (await refused(other, 'campaign_skill_remove', { campaign_id: campaignId, entry_id: second.entry_id }))
        .code,
    ).toBe('ROLE_REQUIRED');
    const withdrawn = await ok(proposer, 'campaign_skill_remove', {
      campaign_id: campaignId,
      entry_id: second.entry_id,
    });
    expect(withdrawn.state).toBe('REMOVED');
    const events = await ledger(other, campaignId);
    expect(mentioning(events, 'SKILL_DECLINED', first.entry_id as string)).toHaveLength(1);
  });

  it('lets an identity propose a version another identity of its owner wrote', async () => {
    const { coordinator, campaignId } = await crew();
    const writer = await newMember(server);
    const sibling = await newMember(server, writer.ownerEmail);
    await ok(sibling, 'campaign_join', { campaign_id: campaignId });
    const { versionId } = await publishSkill(writer);
    const proposed = await ok(sibling, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
    });
    expect(proposed.state).toBe('PROPOSED');
    await ok(coordinator, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: proposed.entry_id,
      decision: 'ACCEPT',
    });
  });

  it('refuses a stranger on propose and on reads under the campaign context', async () => {
    const { proposer, coordinator, stranger, campaignId } = await crew();
    const { versionId } = await publishSkill(proposer);
    const entry = await ok(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
    });
    await ok(coordinator, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: entry.entry_id,
      decision: 'ACCEPT',
    });

    const own = await publishSkill(stranger);
    const propose = await refused(stranger, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: own.versionId,
    });
    expect(propose.code).toBe('NOT_A_MEMBER');
    expect(propose.next_action).toContain('campaign_list');
    const ctx = campaignContext(campaignId);
    expect((await refused(stranger, 'skill_get', { version_id: versionId, context: ctx }, false)).code).toBe(
      'SKILL_CONTEXT_DENIED',
    );
    expect((await refused(stranger, 'skill_list', { context: ctx }, false)).code).toBe(
      'SKILL_CONTEXT_DENIED',
    );
    expect(
      (
        await refused(stranger, 'campaign_skill_decide', {
          campaign_id: campaignId,
          entry_id: entry.entry_id,
          decision: 'DECLINE',
        })
      ).code,
    ).toBe('NOT_A_MEMBER');
  });

  it('does not let a grantee pass on a version granted to it, nor anyone propose an unknown one', async () => {
    const { proposer, campaignId } = await crew();
    const author = await newMember(server);
    const { versionId } = await publishSkill(author);
    const token = await ownerTokenOf(server, author);
    const granted = await ownerApi(server, token, 'POST', `/v1/skills/versions/${versionId}/grants`, {
      grantee_id: proposer.agentId,
    });
    expect(granted.status).toBe(201);
    await ok(proposer, 'skill_get', { version_id: versionId, context: '{"scope":"OWN"}' }, false);
    const passOn = await refused(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: versionId,
    });
    expect(passOn.code).toBe('SKILL_CONTEXT_DENIED');
    expect(passOn.message).toContain('granted');
    expect(passOn.next_action).toContain('owner');

    const unknown = await publishSkill(await newMember(server));
    expect(
      (
        await refused(proposer, 'campaign_skill_propose', {
          campaign_id: campaignId,
          version_id: unknown.versionId,
        })
      ).code,
    ).toBe('NOT_FOUND');
  });

  it('refuses archived and blocked versions', async () => {
    const { proposer, campaignId } = await crew();
    const token = await ownerTokenOf(server, proposer);
    const archived = await publishSkill(proposer);
    expect(
      (await ownerApi(server, token, 'POST', `/v1/skills/${archived.skillId}/archive`, { reason: 'Old.' }))
        .status,
    ).toBe(200);
    expect(
      (
        await refused(proposer, 'campaign_skill_propose', {
          campaign_id: campaignId,
          version_id: archived.versionId,
        })
      ).code,
    ).toBe('SKILL_ARCHIVED');
    const blocked = await publishSkill(proposer);
    expect(
      (
        await ownerApi(server, token, 'POST', `/v1/skills/versions/${blocked.versionId}/block`, {
          reason: 'Wrong.',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await refused(proposer, 'campaign_skill_propose', {
          campaign_id: campaignId,
          version_id: blocked.versionId,
        })
      ).code,
    ).toBe('SKILL_BLOCKED');
  });
});

describe('campaign library for its owner over HTTP', () => {
  it('lists with filters and a signed cursor, adds its own versions at once, decides, edits and removes', async () => {
    const { coordinator, proposer, other, campaignId } = await crew();
    const token = await ownerTokenOf(server, coordinator);
    const base = `/v1/campaigns/${campaignId}/skills`;

    // The owner's own version (written by its identity, the coordinator) is accepted at once.
    const mine = await publishSkill(coordinator, { description: 'Heathland transects, step by step.' });
    const added = await ownerApi(server, token, 'POST', base, {
      version_id: mine.versionId,
      note: 'House method.',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.state).toBe('ACCEPTED');
    expect(added.body.proposed_by).toBe('OWNER');
    expect(
      (await ok(other, 'skill_list', { context: campaignContext(campaignId) }, false)).versions,
    ).toHaveLength(1);

    const theirs = await publishSkill(proposer);
    const proposed = await ok(proposer, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: theirs.versionId,
    });
    const foreign = await ownerApi(server, token, 'POST', base, { version_id: theirs.versionId });
    expect(foreign.status).toBe(404);

    const all = await ownerApi(server, token, 'GET', base);
    expect(all.status).toBe(200);
    expect(all.body.entries.map((e: { entry_id: string }) => e.entry_id)).toEqual([
      proposed.entry_id,
      added.body.entry_id,
    ]);
    expect(all.body.entries[0].version.version_id).toBe(theirs.versionId);
    const waiting = await ownerApi(server, token, 'GET', `${base}?campaign_state=PROPOSED`);
    expect(waiting.body.entries.map((e: { entry_id: string }) => e.entry_id)).toEqual([proposed.entry_id]);
    const byWords = await ownerApi(server, token, 'GET', `${base}?q=heathland`);
    expect(byWords.body.entries.map((e: { entry_id: string }) => e.entry_id)).toEqual([added.body.entry_id]);

    const page1 = await ownerApi(server, token, 'GET', `${base}?limit=1`);
    expect(page1.body.entries).toHaveLength(1);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await ownerApi(
      server,
      token,
      'GET',
      `${base}?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    expect(page2.body.entries[0].entry_id).toBe(added.body.entry_id);
    expect(page2.body.next_cursor).toBeNull();
    // The cursor is bound to the filters it was made with.
    const rebound = await ownerApi(
      server,
      token,
      'GET',
      `${base}?limit=1&campaign_state=ACCEPTED&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    expect(rebound.status).toBe(400);
    expect(rebound.body.error.code).toBe('CURSOR_INVALID');

    const decided = await ownerApi(server, token, 'POST', `${base}/${proposed.entry_id}/decision`, {
      decision: 'ACCEPT',
      reason: 'Good.',
    });
    expect(decided.status).toBe(200);
    expect(decided.body.state).toBe('ACCEPTED');
    expect(decided.body.decided_by).toBe('OWNER');
    const noted = await ownerApi(server, token, 'PATCH', `${base}/${proposed.entry_id}`, {
      note: 'Owner note.',
    });
    expect(noted.body.note).toBe('Owner note.');
    const gone = await ownerApi(server, token, 'DELETE', `${base}/${proposed.entry_id}`, {
      reason: 'Enough.',
    });
    expect(gone.body.state).toBe('REMOVED');
    const goneAgain = await ownerApi(server, token, 'DELETE', `${base}/${proposed.entry_id}`);
    expect(goneAgain.status, JSON.stringify(goneAgain.body)).toBe(200);
    expect(goneAgain.body.state).toBe('REMOVED');

    const events = await ledger(other, campaignId);
    const byOwner = mentioning(events, 'SKILL_ACCEPTED', added.body.entry_id as string);
    expect(byOwner).toHaveLength(1);
    expect(JSON.stringify(byOwner[0])).toContain('OWNER');
    expect(mentioning(events, 'SKILL_ACCEPTED', proposed.entry_id as string)).toHaveLength(1);
    expect(mentioning(events, 'SKILL_REMOVED', proposed.entry_id as string)).toHaveLength(1);

    // Another owner's campaign is not found, as a missing one.
    const strangerToken = await ownerTokenOf(server, await newMember(server));
    expect((await ownerApi(server, strangerToken, 'GET', base)).status).toBe(404);
    expect(
      (await ownerApi(server, strangerToken, 'DELETE', `${base}/${added.body.entry_id}`, {})).status,
    ).toBe(404);
  });
});
