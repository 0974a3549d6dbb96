import { CLI_COMMANDS } from '../domains/catalog.ts';
import type { AnyCommand } from '../framework/index.ts';

/**
 * The `cairn` admin sub-commands: every area's (`cli.ts` beside its `index.ts`), gathered by the
 * catalogue. This file only finds a command by its words and writes the usage.
 */

export const COMMANDS: Readonly<Record<string, AnyCommand>> = CLI_COMMANDS;

/** Flags that take no value (`--reviewer`); every other flag is a string its command's schema checks. */
export const BOOLEAN_FLAGS: ReadonlySet<string> = new Set(
  Object.values(COMMANDS).flatMap((c) => (c.booleans ?? []) as string[]),
);

export type { AnyCommand };

/** The command the words name, and its operand: the one word after a name that takes one. */
export function findCommand(
  words: string[],
): { command: AnyCommand; operand: Record<string, string> } | null {
  const all = COMMANDS;
  const exact = all[words.join(' ')];
  if (exact) return { command: exact, operand: {} };
  const named = all[words.slice(0, -1).join(' ')];
  const word = words.at(-1);
  if (named?.operand && word !== undefined) return { command: named, operand: { [named.operand]: word } };
  return null;
}

export const USAGE = `Usage:
  cairn serve                      run the server (embedded database under CAIRN_DATA_DIR, or DATABASE_URL)
  cairn migrate                    apply pending database migrations
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n')}

Configuration comes from the environment; see docs/configuration.md.`;
