import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** The owner-scoped rules of ManagementService itself, whatever door calls it. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const m = () => server.app.services.management;
const owner = async () =>
  (await server.app.services.identity.addOwner(uniqueEmail(), 'correct horse battery staple')).owner_id;
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'OK',
    (err: { code?: string }) => err.code,
  );

describe('ManagementService', () => {
  it('bounds key and bootstrap expiry, refuses keys and renames for revoked identities, hides others', async () => {
    const a = await owner();
    const b = await owner();
    const { agent_id } = await m().createIdentity(a, {
      displayName: 'Bounded',
      runtime: 'x',
      bootstrapDays: 7,
    });
    expect(await codeOf(m().createProjectKey(a, agent_id, 0))).toBe('VALIDATION_FAILED');
    expect(await codeOf(m().createProjectKey(a, agent_id, 366))).toBe('VALIDATION_FAILED');
    expect(await codeOf(m().createProjectKey(a, agent_id, 365))).toBe('OK');
    expect(await codeOf(m().createIdentity(a, { displayName: 'x', runtime: 'x', bootstrapDays: 31 }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(m().createIdentity(a, { displayName: ' ', runtime: 'x', bootstrapDays: 7 }))).toBe(
      'VALIDATION_FAILED',
    );
    expect(await codeOf(m().createProjectKey(b, agent_id, 30))).toBe('NOT_FOUND');
    expect(await codeOf(m().setMode(b, agent_id, 'READ'))).toBe('NOT_FOUND');
    await m().revoke(a, agent_id);
    expect(await codeOf(m().createProjectKey(a, agent_id, 30))).toBe('CONFLICT');
    expect(await codeOf(m().rename(a, agent_id, 'New name'))).toBe('CONFLICT');
    const audit = await m().auditLog(a);
    expect(audit.map((e) => e.action)).toEqual(['agent.revoke', 'key.create', 'agent.create']);
    expect(JSON.stringify(audit)).not.toContain('cd_prj_');
  });
});
