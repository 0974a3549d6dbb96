import { existsSync } from 'node:fs';

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
