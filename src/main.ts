import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { type AnyCommand, BOOLEAN_FLAGS, COMMANDS, findCommand, USAGE } from './cli/commands.ts';
import { type Config, ConfigError } from './config/config.ts';
import { cliServices, loadAppConfig, TABLES } from './domains/catalog.ts';
import { systemClock } from './kernel/clock.ts';
import { DomainError, errorEnvelope } from './kernel/errors.ts';
import { createLogger, logFormatFor } from './logging.ts';
import { DataDirHeldError, type DataDirLock, lockDataDir } from './storage/data-dir-lock.ts';
import { type Database, type ListenerChange, openDatabase } from './storage/database.ts';

/** `cairn`: serve, migrate, and the operator's admin commands. */

class UsageError extends Error {}

const FLAG_NAMES = [...new Set(Object.values(COMMANDS).flatMap((c) => Object.keys(c.flags.shape)))];

interface Opened {
  database: Database;
  lock: DataDirLock | null;
}

/** Opens the configured database; the embedded one only while no other process holds it. */
async function open(config: Config, logger?: Logger): Promise<Opened> {
  if (config.databaseUrl) {
    const database = await openDatabase({
      tables: TABLES,
      databaseUrl: config.databaseUrl,
      poolSize: config.dbPoolSize,
      onPoolError: (err) => logger?.warn({ err }, 'idle database connection failed; the pool replaces it'),
      onListener: (change) => logListener(logger, change),
    });
    return { database, lock: null };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const lock = lockDataDir(config.dataDir);
  try {
    // PGlite's own files live in a sub-folder, beside the lock and the generated secret.
    return {
      database: await openDatabase({ tables: TABLES, dataDir: path.join(config.dataDir, 'pg') }),
      lock,
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * A LISTEN connection's story in the log: lost (warn: wake-ups on that channel now wait for the
 * periodic re-check), each failed attempt to come back (the first at warn, later ones at debug, so
 * a long outage does not flood the log), and back (info, with how long it was down).
 */
function logListener(logger: Logger | undefined, change: ListenerChange): void {
  const { channel } = change;
  if (change.event === 'lost') {
    logger?.warn(
      { channel, err: change.err },
      `LISTEN connection for ${channel} lost; reconnecting (its wake-ups fall back to periodic re-checks)`,
    );
  } else if (change.event === 'retry-failed') {
    const at = change.attempts === 1 ? 'warn' : 'debug';
    logger?.[at](
      { channel, err: change.err, attempts: change.attempts, next_in_ms: change.nextInMs },
      `LISTEN connection for ${channel} could not reconnect; trying again`,
    );
  } else {
    logger?.info({ channel, down_ms: change.downMs }, `LISTEN connection for ${channel} is back`);
  }
}

/** How long a stopping server lets in-flight requests finish before it cuts their connections. */
const SHUTDOWN_GRACE_MS = 5_000;

async function serve(config: Config): Promise<void> {
  // Loaded here, not at the top: the server's parsers and transports take a second to load, and
  // the admin commands need none of them.
  const { createApp } = await import('./app.ts');
  const format = logFormatFor(config.logFormat);
  const logger = createLogger(config.logLevel, undefined, format);
  const { database, lock } = await open(config, logger);
  const app = await createApp(config, database, { logger });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    // Finish what is in flight, but never wait forever: a client may hold a connection open.
    const force = setTimeout(() => app.http.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await app.http.close();
    clearTimeout(force);
    await database.close();
    lock?.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const address = await app.http.listen({ port: config.port, host: config.host });
  if (!process.env.CAIRN_BASE_URL && config.host !== '127.0.0.1' && config.host !== 'localhost') {
    logger.warn(
      `CAIRN_BASE_URL is not set: published links say ${config.baseUrl}; set it to the address agents use.`,
    );
  }
  logger.info(
    {
      address,
      baseUrl: config.baseUrl,
      database: database.kind,
      dataDir: config.databaseUrl ? undefined : config.dataDir,
    },
    `Cairn listening on ${address}`,
  );
  // A person at a terminal gets a few lines on what to do next; log readers have the line above.
  if (format === 'pretty') {
    const signUp = await app.services.owners.signUpState();
    process.stdout.write(`${banner(config, database.kind, signUp)}\n`);
  }
}

/** What a first run shows a person: where the console is, who becomes the owner, where data lives, how to stop. */
function banner(config: Config, kind: 'pglite' | 'postgres', signUp: 'FIRST' | 'OPEN' | 'CLOSED'): string {
  const consoleUrl = `${config.baseUrl}/console`;
  const account =
    signUp === 'FIRST'
      ? 'create the first account there: it becomes the owner'
      : signUp === 'OPEN'
        ? 'sign in, or create an account'
        : 'sign in with an owner account';
  const data =
    kind === 'pglite' ? `${path.resolve(config.dataDir)} (embedded PostgreSQL)` : 'PostgreSQL (DATABASE_URL)';
  return [
    '',
    `  Cairn is running at ${config.baseUrl}`,
    `  Console  ${consoleUrl}  (${account})`,
    `  Agents   connect to ${config.baseUrl}/mcp; how: ${config.baseUrl}/guide`,
    `  Data     ${data}`,
    '  Stop     Ctrl-C',
    '',
  ].join('\n');
}

/** Runs one admin command against the configured database and returns its JSON answer. */
async function admin(config: Config, command: AnyCommand, flags: Record<string, unknown>): Promise<object> {
  const parsed = command.flags.safeParse(flags);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `--${i.path.join('.') || '?'}: ${i.message}`);
    throw new UsageError(`${problems.join('\n')}\nUsage: ${command.usage}`);
  }
  if ('offline' in command) return command.run(parsed.data, config);
  const secret = command.stdin ? await readSecret(command.stdin) : '';
  const { database, lock } = await open(config);
  try {
    const services = cliServices({ database, clock: systemClock, config });
    return await command.run(services, parsed.data, secret);
  } finally {
    await database.close();
    lock?.release();
  }
}

/** The first line of stdin: secrets never go on the command line, where `ps` and shell history see them. */
async function readSecret(spec: { what: string; min: number; max: number }): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write(`Enter the ${spec.what}, then Enter and Ctrl-D: `);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const secret = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (secret.length < spec.min || secret.length > spec.max) {
    throw new UsageError(`The ${spec.what} (read from stdin) must be ${spec.min}-${spec.max} characters.`);
  }
  return secret;
}

function print(json: boolean, result: object): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [k, v] of Object.entries(result)) {
    process.stdout.write(`${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : v}\n`);
  }
  if ('project_key' in result) process.stdout.write('This key is shown once; store it now.\n');
  if ('token' in result) process.stdout.write('This token is shown once; store it now.\n');
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      // Every flag any command takes is a string but the few bare ones; each command's schema decides which it accepts.
      ...Object.fromEntries(
        FLAG_NAMES.map((name) => [
          name,
          { type: BOOLEAN_FLAGS.has(name) ? ('boolean' as const) : ('string' as const) },
        ]),
      ),
    },
  });
  const json = values.json === true;
  const { json: _j, help, ...flags } = values;
  const command = positionals.join(' ');
  if (help || command === '' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === '' && !help ? 2 : 0;
  }
  try {
    const config = loadAppConfig();
    if (command === 'serve') {
      await serve(config);
      return -1;
    }
    if (command === 'migrate') {
      const { database, lock } = await open(config);
      await database.close();
      lock?.release();
      print(json, { migrated: true, database: database.kind });
      return 0;
    }
    const found = findCommand(positionals);
    if (!found) throw new UsageError(`Unknown command "${command}".\n${USAGE}`);
    const result = await admin(config, found.command, { ...flags, ...found.operand });
    print(json, result);
    // A check that found something fails the command, so cron and CI notice.
    return 'ok' in result && result.ok === false ? 1 : 0;
  } catch (err) {
    return fail(err, json);
  }
}

function fail(err: unknown, json: boolean): number {
  if (err instanceof DomainError) {
    // The refusal's own next move, where it states one (the catalogue's is general).
    process.stderr.write(
      json
        ? `${JSON.stringify(errorEnvelope(err.code, err.message, err.details, err))}\n`
        : `error: ${err.message}\n${err.next ? `next: ${err.next}\n` : ''}`,
    );
    return 1;
  }
  const known = err instanceof UsageError || err instanceof ConfigError || err instanceof DataDirHeldError;
  const message = known ? (err as Error).message : `unexpected error: ${(err as Error)?.stack ?? err}`;
  process.stderr.write(`${message}\n`);
  return err instanceof UsageError ? 2 : 1;
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
