import type { z } from 'zod';
import type { Config } from '../config/config.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Database } from '../storage/database.ts';

/**
 * The operator's admin commands (`cairn <words> --flags`, docs/cli.md) as an area's door: each
 * area names its commands and builds the services they act through (`CliDoor`); the CLI
 * (cli/commands.ts, main.ts) gathers every area's from the catalogue and holds no line of its own
 * for any of them.
 */

/** A command that acts on the configured database, through the areas' CLI services. */
export interface Command<N, F extends z.ZodObject> {
  usage: string;
  flags: F;
  /** Flags that take no value (`--reviewer`); every other flag is a string its schema checks. */
  booleans?: ReadonlyArray<keyof z.infer<F> & string>;
  /** The flag that the word after the command's name fills (`cairn arena verify-score FILE`). */
  operand?: string;
  /** Reads a secret (a password, a key) from stdin before opening the database, never from argv. */
  stdin?: { what: string; min: number; max: number };
  run(services: N, flags: z.infer<F>, secret: string): Promise<object>;
}

/** A command that opens no database (an offline check): it gets the configuration, no services. */
export interface OfflineCommand<F extends z.ZodObject> extends Omit<Command<never, F>, 'run' | 'stdin'> {
  offline: true;
  run(flags: z.infer<F>, config: Config): Promise<object>;
}

// biome-ignore lint/suspicious/noExplicitAny: a command of any area's services.
export type AnyCommand<N = any> = Command<N, z.ZodObject> | OfflineCommand<z.ZodObject>;

/** What an area's CLI services are built from: the database is opened once for the command. */
export interface CliCore {
  database: Database;
  clock: Clock;
  config: Config;
}

/**
 * An area's commands, and the services they act through. `P` is what it builds (cheap: objects,
 * no connections or threads; anything heavier is a function made on first use); `N` is what its
 * commands use, which may name other areas' services: the catalogue checks every need is built.
 */
export interface CliDoor<P, N = P> {
  services(core: CliCore): P;
  commands: Readonly<Record<string, AnyCommand<N>>>;
}

/** A command whose flags type its `run` (the helper only infers). */
export const defineCommand =
  <N>() =>
  <F extends z.ZodObject>(c: Command<N, F>) =>
    c;
