import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, SCREENSHOTS, signIn } from './chromium.ts';
import { uniqueEmail } from './factories.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.ts';

/**
 * The setup every browser test file used to write out for itself, written once here: a real
 * test server and a Chromium of the file's own, started before its tests and closed after them,
 * and console owners made and signed in with one password. What only one file needs (a fixture
 * site, a fake clock, a loopback listener) stays in that file, in hooks of its own.
 */

/** The password of every owner a browser test makes. */
export const PASSWORD = 'correct horse battery staple';

/** The server and browser of a test file; read them inside hooks and tests, once started. */
export interface BrowserSuite {
  readonly server: TestServer;
  readonly context: BrowserContext;
}

/**
 * Starts a test server and Chromium before the file's tests and closes both after them. `server`
 * may be a function, read when the hook runs, for options that exist only then (a fixture
 * site's env, started by a `beforeAll` registered before this call).
 */
export function browserSuite(
  opts: {
    server?: TestServerOptions | (() => TestServerOptions);
    browser?: { acceptDownloads?: boolean };
  } = {},
): BrowserSuite {
  let server: TestServer | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof opts.server === 'function' ? opts.server() : opts.server);
    browser = await launchBrowser(opts.browser);
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('browserSuite: the server starts in beforeAll');
      return server;
    },
    get context() {
      if (!browser) throw new Error('browserSuite: the browser starts in beforeAll');
      return browser.context;
    },
  };
}

/** A new console owner with PASSWORD; answers its email. */
export async function newOwner(server: TestServer, email = uniqueEmail()): Promise<string> {
  await server.app.services.identity.addOwner(email, PASSWORD);
  return email;
}

/** Opens `where` (a path with its query), signs in as `email` there, and waits to be back on it. */
export async function openSignedIn(page: Page, server: TestServer, email: string, where: string) {
  await page.goto(`${server.url}${where}`);
  await signIn(page, email, PASSWORD);
  await page.waitForURL((url) => `${url.pathname}${url.search}` === where);
}
