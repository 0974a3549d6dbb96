import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TABLES } from '../../src/domains/catalog.ts';
import { lockDataDir } from '../../src/storage/data-dir-lock.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { arenaMember, assign } from '../support/arena.ts';
import { cairnCli, seedDataDir } from '../support/cairn-cli.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 2, the operator's half: `cairn arena add-challenge DIR` validates a challenge
 * folder and stores the version in the database, where the owner API lists it (origin OPERATOR)
 * and assigns it. The command and the server share one database for the file: on PostgreSQL a
 * database of the file's own (stored versions would otherwise show in other files' listings),
 * served beside the command as replicas are; embedded, the CLI's data dir, which one process
 * holds at a time, so a server is opened on it between commands (see `served`).
 */

// Real processes (tsx compiles the sources, PGlite opens): more time than most.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const url = process.env.TEST_DATABASE_URL;
const BUILTIN = path.resolve('arena/challenges/cite-quotation/1');
let dir: string;
let own: OwnDatabase | undefined;
let live: TestServer | undefined;
const dataDir = () => path.join(dir, 'data');
const cli = cairnCli(dataDir);

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely
type Json = Record<string, any>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-add-challenge-'));
  if (url) {
    own = await ownDatabase('cairn_arena_add', url);
    live = await startTestServer({ database: own.database });
    return;
  }
  // The CLI's data dir starts as a copy of the migrated template, sparing it initdb.
  await seedDataDir(dataDir());
});
afterAll(async () => {
  await live?.close();
  await own?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A served Cairn over the database the command writes. PostgreSQL: the file's one server,
 * running all along. Embedded: a server on the CLI's data dir (holding its lock, as `cairn serve`
 * does), opened after the command has exited and closed before the next one.
 */
async function served<T>(fn: (server: TestServer) => Promise<T>): Promise<T> {
  if (live) return fn(live);
  const lock = lockDataDir(dataDir());
  const database = await openDatabase({ tables: TABLES, dataDir: path.join(dataDir(), 'pg') });
  const server = await startTestServer({ database });
  try {
    return await fn(server);
  } finally {
    await server.close();
    await database.close();
    lock.release();
  }
}

const addChallenge = (folder: string, ...flags: string[]) =>
  cli.run(['arena', 'add-challenge', folder, ...flags], own ? { env: { DATABASE_URL: own.url } } : {});

/** A copy of the built-in cite-quotation v1 as `<id>/<version>/`, its manifest changed by `edit`. */
function packageFolder(id: string, version = 1, edit: (manifest: Json) => void = () => {}): string {
  const folder = path.join(dir, 'packages', id, String(version));
  mkdirSync(path.dirname(folder), { recursive: true });
  cpSync(BUILTIN, folder, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(folder, 'challenge.json'), 'utf8'));
  manifest.id = id;
  manifest.version = version;
  edit(manifest);
  writeFileSync(path.join(folder, 'challenge.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return folder;
}

/** Every version GET /v1/arena/challenges lists, for a new owner. */
async function listed(server: TestServer): Promise<Json[]> {
  const m = await arenaMember(server);
  const res = await ownerApi(server, m.ownerToken, 'GET', '/v1/arena/challenges');
  expect(res.status).toBe(200);
  return res.body.challenges;
}

const versionsOf = (challenges: Json[], id: string) => challenges.filter((c) => c.challenge_id === id);

const PACKAGE_FILES = [
  'challenge.json',
  'sources/colony-counts.csv',
  'sources/fenmark-atlas.txt',
  'sources/ferry-history.txt',
  'sources/skerry-newsletter.txt',
  'world/README.md',
];

describe('cairn arena add-challenge', () => {
  it('stores a valid version: printed, listed with origin OPERATOR, and assignable', async () => {
    const added = await addChallenge(packageFolder('coastal-quote'), '--json');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const out = JSON.parse(added.stdout);
    expect(out).toEqual({
      challenge_id: 'coastal-quote',
      version: 1,
      package_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      world_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      files: PACKAGE_FILES,
      next: expect.stringContaining('POST /v1/arena/assignments'),
    });

    await served(async (server) => {
      const all = await listed(server);
      const builtin = versionsOf(all, 'cite-quotation')[0];
      expect(versionsOf(all, 'coastal-quote')).toEqual([
        {
          ...builtin,
          challenge_id: 'coastal-quote',
          package_sha256: out.package_sha256,
          origin: 'OPERATOR',
        },
      ]);
      // Only challenge.json changed: the same world, another package.
      expect(out.world_sha256).toBe(builtin?.world_sha256);
      expect(out.package_sha256).not.toBe(builtin?.package_sha256);

      const m = await arenaMember(server);
      const assigned = await assign(server, m, 'coastal-quote');
      expect(assigned.assignments).toEqual([expect.objectContaining({ agent_id: m.agentId })]);
      await m.client.close();
    });
  });

  it('refuses an invalid package with every problem, one a line, and stores nothing', async () => {
    const schema = await addChallenge(
      packageFolder('unknown-field', 1, (manifest) => {
        manifest.colour = 'red';
        manifest.time_limit_minutes = 90;
      }),
    );
    expect(schema.code).toBe(1);
    expect(schema.stdout).toBe('');
    const lines = schema.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: The challenge package in .*unknown-field\/1 is invalid \(2 problem/);
    expect(lines.slice(1, 3).sort()).toEqual([
      'challenge.json#: SCHEMA: Unrecognized key: "colour"',
      expect.stringMatching(/^challenge\.json#time_limit_minutes: SCHEMA: Too big/),
    ]);
    expect(lines[3]).toMatch(/^next: Correct every problem listed/);

    const strayFolder = packageFolder('stray-files');
    writeFileSync(path.join(strayFolder, 'notes.txt'), 'not part of a package\n');
    writeFileSync(path.join(strayFolder, 'sources', 'unlisted.txt'), 'named by no source\n');
    const stray = await addChallenge(strayFolder, '--json');
    expect(stray.code).toBe(1);
    const error = JSON.parse(stray.stderr).error;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.problems).toEqual([
      {
        path: 'notes.txt',
        rule: 'PATH_OUTSIDE_LAYOUT',
        message: expect.stringContaining('Only challenge.json'),
      },
      {
        path: 'sources/unlisted.txt',
        rule: 'UNREFERENCED_FILE',
        message: 'No source of challenge.json names this file',
      },
    ]);
    expect(error.message).toContain('notes.txt: PATH_OUTSIDE_LAYOUT: Only challenge.json');

    // A folder laid out <id>/<version>/ repeats challenge.json's id.
    const renamed = packageFolder('folder-name', 1, (manifest) => {
      manifest.id = 'manifest-name';
    });
    const mismatch = await addChallenge(renamed);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(/^challenge\.json#id: ID_MISMATCH: /m);

    await served(async (server) => {
      const ids = (await listed(server)).map((c) => c.challenge_id);
      for (const id of ['unknown-field', 'stray-files', 'folder-name', 'manifest-name']) {
        expect(ids).not.toContain(id);
      }
    });
  });

  it('refuses a version that exists and keeps the first; the next version is added', async () => {
    const first = await addChallenge(packageFolder('twice-quote'), '--json');
    expect(first.code, first.stderr).toBe(0);
    const again = await addChallenge(
      packageFolder('twice-quote', 1, (manifest) => {
        manifest.title = 'Changed without a new version';
      }),
    );
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      'error: Challenge twice-quote version 1 already exists (added by an operator); versions are immutable.\n' +
        'next: Raise "version" in challenge.json (and the folder name) to add a changed package.\n',
    );
    const second = await addChallenge(
      packageFolder('twice-quote', 2, (manifest) => {
        manifest.title = 'Changed with a new version';
      }),
      '--json',
    );
    expect(second.code, second.stderr).toBe(0);

    await served(async (server) => {
      const versions = versionsOf(await listed(server), 'twice-quote');
      expect(versions.map((c) => [c.version, c.title, c.package_sha256])).toEqual([
        [1, 'Cite the verbatim sentence', JSON.parse(first.stdout).package_sha256],
        [2, 'Changed with a new version', JSON.parse(second.stdout).package_sha256],
      ]);
    });
  });

  it('refuses the id and version of a built-in', async () => {
    const res = await addChallenge(packageFolder('cite-quotation'), '--json');
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr).error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('Challenge cite-quotation version 1 already exists'),
      details: { challenge_id: 'cite-quotation', version: 1 },
      next_action: expect.stringContaining('Raise "version"'),
    });
    await served(async (server) => {
      expect(versionsOf(await listed(server), 'cite-quotation').map((c) => c.origin)).toEqual(['BUILT_IN']);
    });
  });

  it('stores the files byte for byte (a byte-order mark keeps its hash) and refuses NUL', async () => {
    const bomFolder = packageFolder('bom-quote');
    const readme = path.join(bomFolder, 'world', 'README.md');
    writeFileSync(readme, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(readme)]));
    const bom = await addChallenge(bomFolder, '--json');
    expect(bom.code, bom.stderr).toBe(0);

    const nulFolder = packageFolder('nul-quote');
    writeFileSync(path.join(nulFolder, 'world', 'README.md'), 'a\u0000b\n');
    const nul = await addChallenge(nulFolder);
    expect(nul.code).toBe(1);
    expect(nul.stderr).toContain(
      '\nworld/README.md: NUL_CHARACTER: Text files cannot hold the NUL character (U+0000)\n',
    );

    await served(async (server) => {
      const all = await listed(server);
      expect(versionsOf(all, 'bom-quote').map((c) => c.package_sha256)).toEqual([
        JSON.parse(bom.stdout).package_sha256,
      ]);
      expect(versionsOf(all, 'nul-quote')).toEqual([]);
    });
  });
});
