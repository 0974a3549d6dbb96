import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { csrfOf, Visitor } from '../test/support/console-visitor.ts';

/**
 * The suite's authorization-server scenarios against Cairn's own authorization server
 * (issue 42 item 7): the metadata document, and an authorization code grant with PKCE by a
 * public client that registered the way MCP clients do (POST /oauth/register). The grant needs
 * a person: the suite prints the authorization URL and waits for its callback. Here the owner
 * is a console visitor that signs in, opens the URL and presses "allow" on the consent page, as
 * in a browser; the redirect it is given is then followed to the suite's callback server.
 */

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function registerClient(issuer: string, redirectUri: string): Promise<string> {
  const res = await fetch(`${issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = (await res.json()) as { client_id?: string };
  if (res.status !== 201 || !body.client_id) throw new Error(`registration failed: ${res.status}`);
  return body.client_id;
}

/** What the owner does in a browser with the authorization URL: sign in, review, allow. */
async function consent(
  issuer: string,
  owner: { email: string; password: string },
  url: string,
): Promise<void> {
  const visitor = new Visitor(issuer);
  const signedIn = await visitor.signIn(owner.email, owner.password);
  if (signedIn.status !== 303) throw new Error(`owner sign-in answered ${signedIn.status}`);
  const start = await visitor.get(url.slice(issuer.length));
  if (start.status !== 302 || !start.location) throw new Error(`/oauth/authorize answered ${start.status}`);
  const page = await visitor.get(start.location);
  const decided = await visitor.post(start.location, { csrf: csrfOf(page.text), decision: 'allow' });
  if (decided.status !== 303 || !decided.location) throw new Error(`consent answered ${decided.status}`);
  // The browser follows the redirect to the client: the suite's callback server takes the code.
  await fetch(decided.location);
}

/** Runs the authorization scenarios; answers the suite's exit code. */
export async function runAuthorization(
  suite: string,
  issuer: string,
  owner: { email: string; password: string },
  out: string,
): Promise<number> {
  const port = await freePort();
  const clientId = await registerClient(issuer, `http://127.0.0.1:${port}/callback`);
  const child = spawn(
    'npx',
    [
      '-y',
      '-p',
      'node@22',
      '-p',
      suite,
      'conformance',
      'authorization',
      '--url',
      issuer,
      '--client-id',
      clientId,
      '--resource',
      `${issuer}/mcp`,
      '-p',
      String(port),
      '-o',
      out,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, npm_config_loglevel: 'error' } },
  );
  const consented: Promise<void>[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    if (line.startsWith(`${issuer}/oauth/authorize?`)) {
      consented.push(
        consent(issuer, owner, line.trim()).catch((error: unknown) => {
          // No callback will come: the suite would wait five minutes for it.
          process.stdout.write(`consent failed: ${String(error)}\n`);
          child.kill();
        }),
      );
    }
  });
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  await Promise.all(consented);
  return code;
}
