import type { TestServer } from './test-server.ts';

/** The owner API (`/v1/…` with an owner token), as tests call it. */

// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
type Json = Record<string, any>;

/** An owner API token for the owner of `m` (cd_own_…). */
export async function ownerTokenOf(server: TestServer, m: { ownerEmail: string }): Promise<string> {
  return (await server.app.services.identity.addOwnerToken(m.ownerEmail, 'tests', 1)).token;
}

/** Calls the owner API with a bearer; answers status and parsed body. */
export async function ownerApi(
  server: { url: string },
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Json };
}
