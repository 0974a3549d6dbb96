import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, ok, publishTask, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { campaignContext, publishSkill, taskContext } from '../support/skills.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 20 item 7: skills attached to tasks. READ_BEFORE_COMPLETION holds task_complete until the
 * worker has been delivered the whole SKILL.md under its current lease; attachments change at
 * once; usage is reported by the leaseholder; the campaign's owner sees usage and exports the
 * task's materials as one zip.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** A coordinator (owner of the campaign), a worker, another participant and a stranger. */
async function crew() {
  const coordinator = await newMember(server);
  const worker = await newMember(server);
  const other = await newMember(server);
  const stranger = await newMember(server);
  const campaignId = await campaignWith(coordinator, [worker, other]);
  // Both coordinate a campaign of their own, so every library and attachment tool is offered to
  // them (SKILLS_COORDINATOR_AUDIENCE): what refuses them here is their standing in this campaign.
  await campaignWith(other, []);
  await campaignWith(stranger, []);
  return { coordinator, worker, other, stranger, campaignId };
}

async function attach(
  m: Member,
  taskId: string,
  versionId: string,
  delivery = 'READ_BEFORE_COMPLETION',
  order = 1,
) {
  return ok(m, 'task_skill_attach', {
    task_id: taskId,
    version_id: versionId,
    purpose: 'Quote sources the house way.',
    order,
    delivery,
  });
}

/** task_complete with evidence that does not exist: what matters is which check refuses first. */
async function complete(worker: Member, taskId: string, leaseId: string) {
  const res = await callTool(worker.client, 'task_complete', {
    task_id: taskId,
    lease_id: leaseId,
    evidence_ids: ['evd_01JNOTARECORDEDSOURCE0000'],
    claimed_outcome: 'COMPLETE',
    summary: 'The curlew nests on moorland, as the atlas says.',
    idempotency_key: `key-${Math.random()}`,
  });
  expect(res.isError, JSON.stringify(res.body)).toBe(true);
  return res.body.error as { code: string; details: Record<string, unknown>; next_action: string };
}

/** Reads a file to the end in windows of `maxChars`, following range.next_offset; answers the windows. */
async function readToEnd(m: Member, versionId: string, context: string, maxChars = 200) {
  const windows: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const w = await ok(
      m,
      'skill_file_get',
      { version_id: versionId, path: 'SKILL.md', context, offset, max_chars: maxChars },
      false,
    );
    windows.push(w.text as string);
    offset = w.range.next_offset as number | null;
  }
  return windows;
}

describe('READ_BEFORE_COMPLETION', () => {
  it('refuses task_complete naming the unread SKILL.md until it is read to the end under the current lease', async () => {
    const { coordinator, worker, campaignId } = await crew();
    const skill = await publishSkill(coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    const attached = await attach(coordinator, taskId, skill.versionId);
    expect(attached.delivery).toBe('READ_BEFORE_COMPLETION');
    const lease = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    const ctx = taskContext(taskId);

    const listed = await ok(worker, 'skill_list', { context: ctx }, false);
    expect(listed.versions.map((v: { version_id: string }) => v.version_id)).toEqual([skill.versionId]);

    const first = await complete(worker, taskId, lease);
    expect(first.code).toBe('SKILL_READ_REQUIRED');
    expect(first.details.missing).toEqual([
      expect.objectContaining({ version_id: skill.versionId, path: 'SKILL.md' }),
    ]);
    expect(first.next_action).toContain('skill_file_get');

    // One window is not the whole file.
    await ok(
      worker,
      'skill_file_get',
      { version_id: skill.versionId, path: 'SKILL.md', context: ctx, max_chars: 200 },
      false,
    );
    expect((await complete(worker, taskId, lease)).code).toBe('SKILL_READ_REQUIRED');

    const windows = await readToEnd(worker, skill.versionId, ctx);
    expect(windows.length).toBeGreaterThan(3);
    expect(windows.join('')).toBe(skill.skillMd);
    // The gate is passed: the submission goes on to its own checks (here, unknown evidence).
    expect((await complete(worker, taskId, lease)).code).not.toBe('SKILL_READ_REQUIRED');

    // The owner sees that SKILL.md was delivered in full under that lease.
    const token = await ownerTokenOf(server, coordinator);
    const usage = await ownerApi(server, token, 'GET', `/v1/tasks/${taskId}/skill-usage?lease_id=${lease}`);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body.skills[0].skill_md.fully_delivered).toBe(true);

    // A new lease starts with nothing read: reads under the previous one do not count.
    await ok(worker, 'task_release', {
      task_id: taskId,
      lease_id: lease,
      reason: 'OTHER',
      note: 'Back soon.',
    });
    const second = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    expect(second).not.toBe(lease);
    const again = await complete(worker, taskId, second);
    expect(again.code).toBe('SKILL_READ_REQUIRED');
    const fresh = await ownerApi(server, token, 'GET', `/v1/tasks/${taskId}/skill-usage?lease_id=${second}`);
    expect(fresh.body.skills[0].skill_md.fully_delivered).toBe(false);
    expect(fresh.body.skills[0].skill_md.first_missing_byte).toBe(0);
    // The skill list honours lease_id too (SPEC): the earlier lease's delivery, the live one's, a
    // lease of no such task refused, and an over-long id a validation failure.
    const skillsOf = (query: string) => ownerApi(server, token, 'GET', `/v1/tasks/${taskId}/skills${query}`);
    const underFirst = await skillsOf(`?lease_id=${lease}`);
    expect(underFirst.body).toMatchObject({
      lease_id: lease,
      skills: [{ skill_md: { fully_delivered: true } }],
    });
    const underLive = await skillsOf('');
    expect(underLive.body).toMatchObject({
      lease_id: second,
      skills: [{ skill_md: { fully_delivered: false } }],
    });
    expect((await skillsOf('?lease_id=lse_01JNOTTHELEASE000000000000')).status).toBe(404);
    expect((await skillsOf(`?lease_id=${'x'.repeat(97)}`)).status).toBe(422);

    // Detaching takes effect at once: no more reads, no more hold on completion.
    const detached = await ok(coordinator, 'task_skill_detach', {
      task_id: taskId,
      binding_id: attached.binding_id,
    });
    expect(detached.status).toBe('DETACHED');
    expect(
      (await refused(worker, 'skill_get', { version_id: skill.versionId, context: ctx }, false)).code,
    ).toBe('SKILL_CONTEXT_DENIED');
    expect((await complete(worker, taskId, second)).code).not.toBe('SKILL_READ_REQUIRED');
  });

  it('the worker’s own materials export delivers SKILL.md in full under its lease; nobody else’s does', async () => {
    const { coordinator, worker, stranger, campaignId } = await crew();
    const skill = await publishSkill(coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    await attach(coordinator, taskId, skill.versionId);
    const lease = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    const exportAs = (bearer: string, query = '') =>
      fetch(`${server.url}/v1/tasks/${taskId}/materials-export${query}`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    // Not the worker: a stranger's own credential, or a lease id that is not the live one.
    const byStranger = await exportAs(stranger.key);
    expect(byStranger.status).toBe(403);
    expect(((await byStranger.json()) as { error: { code: string } }).error.code).toBe(
      'SKILL_CONTEXT_DENIED',
    );
    expect((await exportAs(worker.key, '?lease_id=lse_01JNOTTHELEASE000000000000')).status).toBe(403);
    expect((await exportAs('cd_prj_NOTAREALKEY')).status).toBe(401);
    expect((await complete(worker, taskId, lease)).code).toBe('SKILL_READ_REQUIRED');

    // A HEAD sends no bytes, so it is not served and delivers nothing.
    const head = await fetch(`${server.url}/v1/tasks/${taskId}/materials-export`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${worker.key}` },
    });
    expect(head.status).not.toBe(200);
    expect((await complete(worker, taskId, lease)).code).toBe('SKILL_READ_REQUIRED');

    const res = await exportAs(worker.key, `?lease_id=${lease}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const manifest = JSON.parse(Buffer.from(files[`${taskId}/MANIFEST.json`] ?? []).toString('utf8'));
    expect(manifest).toMatchObject({ lease_id: lease, deliveries_recorded: true });
    expect(Buffer.from(files[`${taskId}/skills/${skill.name}/SKILL.md`] ?? []).toString('utf8')).toBe(
      skill.skillMd,
    );
    expect((await complete(worker, taskId, lease)).code).not.toBe('SKILL_READ_REQUIRED');

    // The owner's export names a lease only of this task.
    const token = await ownerTokenOf(server, coordinator);
    const foreign = await ownerApi(
      server,
      token,
      'GET',
      `/v1/tasks/${taskId}/skill-usage?lease_id=lse_01JNOTTHELEASE000000000000`,
    );
    expect(foreign.status).toBe(404);
  });

  it("a closed campaign's library and task skills no longer change (CAMPAIGN_CLOSED)", async () => {
    const { coordinator, campaignId } = await crew();
    const skill = await publishSkill(coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    const token = await ownerTokenOf(server, coordinator);
    expect((await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/close`, {})).status).toBe(200);
    // The coordinator leads another, open campaign, so the tools stay offered to it.
    await campaignWith(coordinator, []);
    const proposed = await refused(coordinator, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: skill.versionId,
    });
    expect(proposed.code).toBe('CAMPAIGN_CLOSED');
    const attached = await refused(coordinator, 'task_skill_attach', {
      task_id: taskId,
      version_id: skill.versionId,
      purpose: 'Too late.',
      order: 1,
      delivery: 'RECOMMENDED',
    });
    expect(attached.code).toBe('CAMPAIGN_CLOSED');
    const byOwner = await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/skills`, {
      version_id: skill.versionId,
    });
    expect([byOwner.status, byOwner.body.error?.code]).toEqual([409, 'CAMPAIGN_CLOSED']);
  });

  it('holds the cap of 20 attachments a task under concurrent attaches', async () => {
    const { coordinator, campaignId } = await crew();
    const taskId = await publishTask(coordinator, campaignId);
    const versions = await Promise.all(
      Array.from({ length: 22 }, () => publishSkill(coordinator, { body: '# S\n' })),
    );
    const results = await Promise.all(
      versions.map((v, i) =>
        callTool(coordinator.client, 'task_skill_attach', {
          task_id: taskId,
          version_id: v.versionId,
          purpose: 'Raced.',
          order: i,
          delivery: 'RECOMMENDED',
          idempotency_key: `key-${Math.random()}`,
        }),
      ),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(20);
    expect(results.filter((r) => r.isError).map((r) => r.body.error.code)).toEqual(['CONFLICT', 'CONFLICT']);
    const token = await ownerTokenOf(server, coordinator);
    const listed = await ownerApi(server, token, 'GET', `/v1/tasks/${taskId}/skills`);
    expect(listed.body.skills).toHaveLength(20);
  });

  it('exports skills that share a name into folders of their own, none overwriting another', async () => {
    const { coordinator, campaignId } = await crew();
    const name = `same-${Math.random().toString(36).slice(2, 8)}`;
    const skills = [
      await publishSkill(coordinator, { name, body: '# One\n' }),
      await publishSkill(coordinator, { name, body: '# Two\n' }),
      await publishSkill(coordinator, { name, body: '# Three\n' }),
    ];
    const taskId = await publishTask(coordinator, campaignId);
    for (const [i, skill] of skills.entries())
      await attach(coordinator, taskId, skill.versionId, 'RECOMMENDED', i);
    const token = await ownerTokenOf(server, coordinator);
    const res = await fetch(`${server.url}/v1/tasks/${taskId}/materials-export`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const skillMds = Object.keys(files).filter((p) => p.endsWith('/SKILL.md'));
    expect(skillMds).toHaveLength(3);
    const texts = skillMds.map((p) => Buffer.from(files[p] ?? []).toString('utf8')).sort();
    expect(texts).toEqual(skills.map((s) => s.skillMd).sort());
  });

  it('refuses reads under the task context to a stranger and to a member without the lease', async () => {
    const { coordinator, worker, other, stranger, campaignId } = await crew();
    const skill = await publishSkill(coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    await attach(coordinator, taskId, skill.versionId, 'REQUIRED');
    await ok(worker, 'task_claim', { task_id: taskId });
    const ctx = taskContext(taskId);
    await ok(worker, 'skill_get', { version_id: skill.versionId, context: ctx }, false);
    for (const m of [stranger, other]) {
      expect((await refused(m, 'skill_get', { version_id: skill.versionId, context: ctx }, false)).code).toBe(
        'SKILL_CONTEXT_DENIED',
      );
      expect(
        (
          await refused(
            m,
            'skill_file_get',
            { version_id: skill.versionId, path: 'SKILL.md', context: ctx },
            false,
          )
        ).code,
      ).toBe('SKILL_CONTEXT_DENIED');
      expect((await refused(m, 'skill_list', { context: ctx }, false)).code).toBe('SKILL_CONTEXT_DENIED');
    }
    expect(
      (
        await refused(stranger, 'task_skill_attach', {
          task_id: taskId,
          version_id: (await publishSkill(stranger)).versionId,
          purpose: 'Mine.',
          order: 0,
          delivery: 'RECOMMENDED',
        })
      ).code,
    ).toBe('NOT_FOUND');
  });
});

describe('attaching', () => {
  it('takes the library’s accepted versions or the attacher’s own, once per task, from its creator or a coordinator', async () => {
    const { coordinator, worker, other, campaignId } = await crew();
    const taskId = await publishTask(coordinator, campaignId);
    const own = await publishSkill(coordinator);
    const byOther = await publishSkill(other);

    // A participant that did not create the task may not attach, even its own version.
    expect(
      (
        await refused(other, 'task_skill_attach', {
          task_id: taskId,
          version_id: byOther.versionId,
          purpose: 'Mine.',
          order: 0,
          delivery: 'RECOMMENDED',
        })
      ).code,
    ).toBe('ROLE_REQUIRED');
    // Another owner's version that is not in the library is refused; once accepted it can be attached.
    const proposal = await ok(other, 'campaign_skill_propose', {
      campaign_id: campaignId,
      version_id: byOther.versionId,
    });
    expect(
      (
        await refused(coordinator, 'task_skill_attach', {
          task_id: taskId,
          version_id: byOther.versionId,
          purpose: 'Theirs.',
          order: 2,
          delivery: 'RECOMMENDED',
        })
      ).code,
    ).toBe('SKILL_CONTEXT_DENIED');
    await ok(coordinator, 'campaign_skill_decide', {
      campaign_id: campaignId,
      entry_id: proposal.entry_id,
      decision: 'ACCEPT',
    });
    const fromLibrary = await attach(coordinator, taskId, byOther.versionId, 'RECOMMENDED', 2);
    const first = await attach(coordinator, taskId, own.versionId, 'REQUIRED', 1);
    const twice = await refused(coordinator, 'task_skill_attach', {
      task_id: taskId,
      version_id: own.versionId,
      purpose: 'Again.',
      order: 3,
      delivery: 'RECOMMENDED',
    });
    expect(twice.code).toBe('CONFLICT');
    expect(twice.details.binding_id).toBe(first.binding_id);

    const unknown = await publishSkill(await newMember(server));
    expect(
      (
        await refused(coordinator, 'task_skill_attach', {
          task_id: taskId,
          version_id: unknown.versionId,
          purpose: 'Unknown.',
          order: 0,
          delivery: 'RECOMMENDED',
        })
      ).code,
    ).toBe('NOT_FOUND');

    const updated = await ok(coordinator, 'task_skill_update', {
      task_id: taskId,
      binding_id: fromLibrary.binding_id,
      order: 0,
      delivery: 'READ_BEFORE_COMPLETION',
    });
    expect(updated.delivery).toBe('READ_BEFORE_COMPLETION');
    expect(updated.order).toBe(0);

    const lease = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    const listed = await ok(worker, 'skill_list', { context: taskContext(taskId) }, false);
    expect(listed.versions).toHaveLength(2);
    const held = await complete(worker, taskId, lease);
    expect(held.code).toBe('SKILL_READ_REQUIRED');
    expect(held.details.missing).toEqual([expect.objectContaining({ version_id: byOther.versionId })]);

    const events = (
      await ok(other, 'events_watch', { campaign_id: campaignId, wait_seconds: 1, limit: 200 }, false)
    ).events as Array<{ kind: string }>;
    const kinds = events.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'TASK_SKILL_ATTACHED')).toHaveLength(2);
    expect(kinds).toContain('TASK_SKILL_UPDATED');
  });

  it('lets the task’s creator attach when it is a participant', async () => {
    const { coordinator, other } = await crew();
    const campaignId = await campaignWith(coordinator, [other], { allow_agent_publish: true });
    const taskId = await publishTask(other, campaignId);
    const own = await publishSkill(other);
    const attached = await attach(other, taskId, own.versionId, 'RECOMMENDED');
    expect(attached.attached_by).toBe(other.agentId);
  });
});

describe('usage reports', () => {
  it('are taken from the leaseholder only, for a version attached to the task', async () => {
    const { coordinator, worker, other, stranger, campaignId } = await crew();
    const skill = await publishSkill(coordinator);
    const loose = await publishSkill(coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    await attach(coordinator, taskId, skill.versionId, 'RECOMMENDED');
    const lease = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    const args = {
      task_id: taskId,
      version_id: skill.versionId,
      outcome: 'APPLIED',
      note: 'Every quotation checked.',
    };

    const report = await ok(worker, 'skill_usage_report', args);
    expect(report.lease_id).toBe(lease);
    expect(report.outcome).toBe('APPLIED');
    expect((await refused(other, 'skill_usage_report', args)).code).toBe('LEASE_REQUIRED');
    expect((await refused(coordinator, 'skill_usage_report', args)).code).toBe('LEASE_REQUIRED');
    expect((await refused(stranger, 'skill_usage_report', args)).code).toBe('LEASE_REQUIRED');
    expect((await refused(worker, 'skill_usage_report', { ...args, version_id: loose.versionId })).code).toBe(
      'NOT_FOUND',
    );

    const token = await ownerTokenOf(server, coordinator);
    const usage = await ownerApi(server, token, 'GET', `/v1/tasks/${taskId}/skill-usage?lease_id=${lease}`);
    expect(usage.body.reports).toEqual([
      expect.objectContaining({ report_id: report.report_id, outcome: 'APPLIED' }),
    ]);
  });
});

describe('task skills for the campaign owner over HTTP', () => {
  it('attaches, lists, updates, detaches and exports the task’s materials as one zip', async () => {
    const { coordinator, worker, campaignId } = await crew();
    const token = await ownerTokenOf(server, coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    const kept = await publishSkill(coordinator);
    const blocked = await publishSkill(coordinator);
    const base = `/v1/tasks/${taskId}/skills`;

    const a = await ownerApi(server, token, 'POST', base, {
      version_id: kept.versionId,
      purpose: 'The house quotation method.',
      order: 1,
      delivery: 'REQUIRED',
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body.attached_by).toBe('OWNER');
    const b = await ownerApi(server, token, 'POST', base, {
      version_id: blocked.versionId,
      purpose: 'Will be blocked.',
      order: 2,
      delivery: 'RECOMMENDED',
    });
    expect(b.status).toBe(201);
    expect(
      (
        await ownerApi(server, token, 'POST', base, {
          version_id: kept.versionId,
          purpose: 'x',
          order: 0,
          delivery: 'REQUIRED',
        })
      ).status,
    ).toBe(409);

    const patched = await ownerApi(server, token, 'PATCH', `${base}/${a.body.binding_id}`, { order: 0 });
    expect(patched.body.order).toBe(0);
    expect((await ownerApi(server, token, 'PATCH', `${base}/${a.body.binding_id}`, {})).status).toBe(422);
    expect(
      (
        await ownerApi(server, token, 'POST', `/v1/skills/versions/${blocked.versionId}/block`, {
          reason: 'Wrong.',
        })
      ).status,
    ).toBe(200);

    const listed = await ownerApi(server, token, 'GET', base);
    expect(listed.body.skills.map((s: { binding_id: string }) => s.binding_id)).toEqual([
      a.body.binding_id,
      b.body.binding_id,
    ]);

    // The worker's reads under TASK are recorded; the owner's export is not a delivery.
    const lease = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    const res = await fetch(`${server.url}/v1/tasks/${taskId}/materials-export?lease_id=${lease}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/zip');
    const zip = new Uint8Array(await res.arrayBuffer());
    const files = unzipSync(zip);
    const read = (p: string) => Buffer.from(files[`${taskId}/${p}`] ?? new Uint8Array()).toString('utf8');
    expect(read('TASK.md')).toContain('Find one verifiable fact.');
    expect(JSON.parse(read('task.json'))).toMatchObject({ task_id: taskId, title: 'Find a fact' });
    expect(read(`skills/${kept.name}/SKILL.md`)).toBe(kept.skillMd);
    expect(Object.keys(files).some((p) => p.includes(blocked.name))).toBe(false);
    const manifest = JSON.parse(read('MANIFEST.json'));
    expect(manifest.lease_id).toBe(lease);
    expect(manifest.skills.map((s: { version_id: string }) => s.version_id)).toEqual([kept.versionId]);
    expect(manifest.left_out).toEqual([
      expect.objectContaining({ version_id: blocked.versionId, reason: 'BLOCKED' }),
    ]);
    // Deterministic: the same task and attachments give the same bytes.
    const again = await fetch(`${server.url}/v1/tasks/${taskId}/materials-export?lease_id=${lease}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(zip))).toBe(true);
    const usage = await ownerApi(server, token, 'GET', `/v1/tasks/${taskId}/skill-usage?lease_id=${lease}`);
    expect(usage.body.skills[0].skill_md.fully_delivered).toBe(false);

    const gone = await ownerApi(server, token, 'DELETE', `${base}/${a.body.binding_id}`, {
      reason: 'Not needed.',
    });
    expect(gone.body.status).toBe('DETACHED');
    expect(
      (
        await refused(
          worker,
          'skill_get',
          { version_id: kept.versionId, context: taskContext(taskId) },
          false,
        )
      ).code,
    ).toBe('SKILL_CONTEXT_DENIED');
    expect((await ownerApi(server, token, 'DELETE', `${base}/${a.body.binding_id}`)).body.status).toBe(
      'DETACHED',
    );

    // Another owner sees no such task.
    const strangerToken = await ownerTokenOf(server, await newMember(server));
    expect((await ownerApi(server, strangerToken, 'GET', base)).status).toBe(404);
    expect(
      (
        await fetch(`${server.url}/v1/tasks/${taskId}/materials-export`, {
          headers: { authorization: `Bearer ${strangerToken}` },
        })
      ).status,
    ).toBe(404);
    // The campaign context is not the task context: an attachment does not put a version in the library.
    expect(
      (
        await refused(
          worker,
          'skill_get',
          { version_id: kept.versionId, context: campaignContext(campaignId) },
          false,
        )
      ).code,
    ).toBe('SKILL_CONTEXT_DENIED');
  });
});
