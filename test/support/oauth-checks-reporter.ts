import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import {
  type OAuthCheck,
  type OAuthChecksFile,
  oauthChecksFileSchema,
} from '../../src/domains/discovery/oauth-client-checks.ts';
import type { OAuthCheckMark } from './oauth-checks.ts';

/**
 * Writes the OAuth regression results to CAIRN_OAUTH_CHECKS_OUT when that is set (`.ci/run`
 * sets it; a plain `npm test` writes nothing). One result per (client, flow, database): PASSED
 * when every test of the marked blocks passed, FAILED when any failed, SKIPPED when none ran.
 * Results of the other database leg already in the file are kept, so the PGlite and the
 * PostgreSQL legs of one CI run end up side by side.
 */
export default class OAuthChecksReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out = process.env.CAIRN_OAUTH_CHECKS_OUT;
    if (!out) return;
    const database = process.env.TEST_DATABASE_URL ? 'postgresql' : 'pglite';
    const now = new Date().toISOString();
    const byKey = new Map<string, OAuthCheck>();
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const mark = markOf(test);
        if (!mark) continue;
        const key = `${mark.client}\n${mark.flow}`;
        const check = byKey.get(key) ?? {
          client: mark.client,
          client_version: versionOf(mark.client),
          flow: mark.flow,
          database,
          result: 'SKIPPED',
          tests: 0,
          failed: 0,
          checked_at: now,
        };
        const state = test.result().state;
        if (state === 'passed' || state === 'failed') check.tests += 1;
        if (state === 'failed') check.failed += 1;
        check.result = check.failed > 0 ? 'FAILED' : check.tests > 0 ? 'PASSED' : 'SKIPPED';
        byKey.set(key, check);
      }
    }
    if (byKey.size === 0) return;
    const kept = readExisting(out).filter(
      (c) => c.database !== database || !byKey.has(`${c.client}\n${c.flow}`),
    );
    const file: OAuthChecksFile = {
      format: 1,
      suite: 'test/e2e/oauth-*.test.ts',
      cairn_version: versionOf('.'),
      node: process.version,
      checks: [...kept, ...byKey.values()],
    };
    mkdirSync(path.dirname(out), { recursive: true });
    // Written aside and renamed, so a server reading the file never sees half of it.
    writeFileSync(`${out}.tmp`, `${JSON.stringify(file, null, 2)}\n`);
    renameSync(`${out}.tmp`, out);
  }
}

/** The mark on the test or the nearest describe block around it. */
function markOf(test: TestCase): OAuthCheckMark | undefined {
  if (test.meta().oauthCheck) return test.meta().oauthCheck;
  let parent = test.parent;
  while (parent.type === 'suite') {
    const mark = parent.meta().oauthCheck;
    if (mark) return mark;
    parent = parent.parent;
  }
  return undefined;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The installed version of a client library (read from its folder: some packages' exports map
 * `package.json` to a build's stub), Node's own for hand-written requests, Cairn's for '.'.
 */
function versionOf(client: string): string {
  if (client === 'fetch') return `node ${process.version} (undici ${process.versions.undici})`;
  const manifest = client === '.' ? 'package.json' : path.join('node_modules', client, 'package.json');
  return (JSON.parse(readFileSync(path.join(ROOT, manifest), 'utf8')) as { version: string }).version;
}

function readExisting(out: string): OAuthCheck[] {
  if (!existsSync(out)) return [];
  try {
    const parsed = oauthChecksFileSchema.safeParse(JSON.parse(readFileSync(out, 'utf8')));
    return parsed.success ? parsed.data.checks : [];
  } catch {
    return [];
  }
}
