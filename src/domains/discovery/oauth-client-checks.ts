import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * `GET /v1/public/oauth-client-checks`: the dated results of the OAuth regression suite
 * (`test/e2e/oauth-*.test.ts`) as CI last ran them, so a person choosing a client can see which
 * libraries and flows were checked against this build. CI writes the file
 * (`test/support/oauth-checks-reporter.ts`, enabled by CAIRN_OAUTH_CHECKS_OUT in `.ci/run`); a
 * release ships the file of its own run, and CAIRN_OAUTH_CHECKS_FILE points elsewhere.
 */

/** Where the file of the build's own CI run lives in the package. */
export const DEFAULT_OAUTH_CHECKS_FILE = fileURLToPath(
  new URL('../../../reports/oauth-client-checks.json', import.meta.url),
);

const checkSchema = z.object({
  client: z.string().min(1).max(100),
  client_version: z.string().min(1).max(100),
  flow: z.string().min(1).max(200),
  database: z.enum(['pglite', 'postgresql']),
  result: z.enum(['PASSED', 'FAILED', 'SKIPPED']),
  tests: z.number().int().min(0),
  failed: z.number().int().min(0),
  checked_at: z.iso.datetime(),
});

export const oauthChecksFileSchema = z.object({
  format: z.literal(1),
  suite: z.string().max(200),
  cairn_version: z.string().max(50),
  node: z.string().max(50),
  checks: z.array(checkSchema).max(1_000),
});

export type OAuthCheck = z.infer<typeof checkSchema>;
export type OAuthChecksFile = z.infer<typeof oauthChecksFileSchema>;

export type OAuthChecksDocument =
  | (OAuthChecksFile & { status: 'RECORDED'; checked_at: string })
  | { status: 'NOT_RECORDED'; reason: string; checks: []; next: string };

const HOW_TO_RECORD =
  'Run the suite in a checkout with CAIRN_OAUTH_CHECKS_OUT=reports/oauth-client-checks.json npm test ' +
  '(.ci/run does), then serve that file with CAIRN_OAUTH_CHECKS_FILE.';

/**
 * Reads the file when it changed since the last read (by mtime and size), so a CI run that
 * rewrites it is served without a restart, and a probe storm costs one `stat` each.
 */
export function oauthClientChecksReader(file: string): () => Promise<OAuthChecksDocument> {
  let cached: { key: string; doc: OAuthChecksDocument } | null = null;
  return async () => {
    let key: string;
    try {
      const s = await stat(file);
      key = `${s.mtimeMs}:${s.size}`;
      if (s.size > 1_000_000) return notRecorded('the results file is larger than 1 MB');
    } catch {
      return notRecorded('no OAuth regression run is recorded for this build');
    }
    if (cached?.key === key) return cached.doc;
    const doc = parse(await readFile(file, 'utf8').catch(() => ''));
    cached = { key, doc };
    return doc;
  };
}

function parse(text: string): OAuthChecksDocument {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return notRecorded('the results file is not JSON');
  }
  const parsed = oauthChecksFileSchema.safeParse(json);
  if (!parsed.success) return notRecorded('the results file does not have the expected shape');
  const checks = [...parsed.data.checks].sort(
    (a, b) =>
      a.client.localeCompare(b.client) ||
      a.flow.localeCompare(b.flow) ||
      a.database.localeCompare(b.database),
  );
  const latest = checks.reduce((max, c) => (c.checked_at > max ? c.checked_at : max), '');
  return { status: 'RECORDED', checked_at: latest, ...parsed.data, checks };
}

function notRecorded(reason: string): OAuthChecksDocument {
  return { status: 'NOT_RECORDED', reason, checks: [], next: HOW_TO_RECORD };
}
