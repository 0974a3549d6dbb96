import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';

/** Debian's Chromium: never a browser downloaded by playwright. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, sandbox-free (CI runs as root) and quiet: no background calls to a closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether Chromium is installed; browser tests skip, saying so, when it is not. */
export const chromiumInstalled = existsSync(CHROMIUM);
if (!chromiumInstalled) {
  console.log(`skipped: chromium not installed (${CHROMIUM}); apt-get install chromium to run it`);
}

/** Set CAIRN_SCREENSHOTS to a directory to keep PNGs of the pages the browser saw. */
export const SCREENSHOTS = process.env.CAIRN_SCREENSHOTS;

/** A Chromium of one test file, on a profile of its own that `close` removes. */
export async function launchBrowser(opts: { acceptDownloads?: boolean } = {}) {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'cairn-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    ...opts,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Console errors and uncaught page errors (a script the CSP blocked shows up here), as they happen. */
export function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/** Fills the console's sign-in form the page was sent to, and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
