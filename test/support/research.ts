import { expect } from 'vitest';
import type { Member } from './campaigns.ts';
import type { TestServer } from './test-server.ts';

/**
 * A person's import through POST /v1/research/imports, with a fresh owner API token of the
 * member's owner; the import must succeed (201). Returns its evidence id.
 */
export async function ownerImport(
  server: TestServer,
  owner: Member,
  body: Record<string, unknown>,
): Promise<string> {
  const token = (await server.app.services.identity.addOwnerToken(owner.ownerEmail, 'test', 1)).token;
  const res = await fetch(`${server.url}/v1/research/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { evidence_id: string };
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.evidence_id;
}
