/**
 * The server-side verifier: scores a run against its challenge's rubric from the submitted
 * artifacts, the final workspace and the TEAM thread. Deterministic: the same input gives the
 * same result, line for line (the rubric's order, notes built only from the input). A bad
 * artifact or workspace earns 0 on its line with a note; only a sandbox that cannot run at all
 * (at capacity, closed) throws, so the caller may retry rather than record a false zero.
 */
import type { ExecRequest, ExecResult } from '../../../sandbox/index.ts';
import { contentSha256 } from './hash.ts';
import {
  checkFieldEquals,
  checkJsonEquals,
  checkMentionsAll,
  checkQuote,
  type Outcome,
} from './json-checks.ts';
import type { Check } from './schema.ts';
import type { LoadedChallenge, RubricResult, VerifyInput, VerifyResult } from './types.ts';

/** What the verifier needs of the sandbox pool. */
export interface VerifierSandbox {
  exec(request: ExecRequest): Promise<ExecResult>;
}

type CheckOf<T extends Check['type']> = Extract<Check, { type: T }>;

async function checkSandbox(
  check: CheckOf<'sandbox_passes'>,
  input: VerifyInput,
  sandbox: VerifierSandbox,
): Promise<Outcome> {
  if (!input.workspace.some((file) => file.path === check.entry)) {
    return { points: 0, note: `${check.entry} is not in the final workspace` };
  }
  const result = await sandbox.exec({
    files: input.workspace.map((file) => ({ path: file.path, content: file.content })),
    entry: check.entry,
    args: check.args ?? [],
    ...(check.timeout_ms === undefined ? {} : { timeoutMs: check.timeout_ms }),
  });
  if (result.limit) return { points: 0, note: `${check.entry} hit the sandbox ${result.limit} limit` };
  if (result.exitCode !== 0) return { points: 0, note: `${check.entry} exited with ${result.exitCode}` };
  if (check.expect_stdout !== undefined && !result.stdout.includes(check.expect_stdout)) {
    return { points: 0, note: `${check.entry} exited 0 but did not print the expected output` };
  }
  return { points: 'all', note: `${check.entry} passes` };
}

function checkUnchanged(
  check: CheckOf<'file_unchanged'>,
  challenge: LoadedChallenge,
  input: VerifyInput,
): Outcome {
  const seed = new Map(challenge.worldFiles.map((file) => [file.path, contentSha256(file.content)]));
  const final = new Map(input.workspace.map((file) => [file.path, file.content]));
  const changed = check.paths.filter((path) => {
    const content = final.get(path);
    return content === undefined || contentSha256(content) !== seed.get(path);
  });
  if (changed.length > 0) return { points: 0, note: `changed or deleted: ${changed.join(', ')}` };
  return { points: 'all', note: `unchanged: ${check.paths.join(', ')}` };
}

function checkMessage(check: CheckOf<'message_present'>, input: VerifyInput): Outcome {
  const found = input.messages.some(
    (message) =>
      message.type === check.message_type &&
      (check.from_role === undefined || message.from_role === check.from_role) &&
      (check.to_role === undefined || message.to_role === check.to_role) &&
      message.from_role !== message.to_role,
  );
  const who = `${check.from_role ?? 'any member'} to ${check.to_role ?? 'another member'}`;
  return found
    ? { points: 'all', note: `a ${check.message_type} from ${who} is in the thread` }
    : { points: 0, note: `no ${check.message_type} from ${who} in the thread` };
}

async function score(
  check: Check,
  max: number,
  challenge: LoadedChallenge,
  input: VerifyInput,
  sandbox: VerifierSandbox,
): Promise<Outcome> {
  switch (check.type) {
    case 'quote_in_source':
      return checkQuote(check, input.artifacts, challenge.sources);
    case 'json_equals':
      return checkJsonEquals(check, input.artifacts, max);
    case 'json_field_equals':
      return checkFieldEquals(check, input.artifacts);
    case 'json_field_mentions_all':
      return checkMentionsAll(check, input.artifacts);
    case 'sandbox_passes':
      return checkSandbox(check, input, sandbox);
    case 'file_unchanged':
      return checkUnchanged(check, challenge, input);
    case 'message_present':
      return checkMessage(check, input);
  }
}

/**
 * Scores one run. Lines run in rubric order, one at a time, so sandbox runs never compete with
 * each other for the pool.
 * @throws whatever `sandbox.exec` throws when the pool cannot run the program (DEGRADED_MODE).
 */
export async function verifyRun(
  challenge: LoadedChallenge,
  input: VerifyInput,
  sandbox: VerifierSandbox,
): Promise<VerifyResult> {
  const rubric: RubricResult[] = [];
  for (const line of challenge.challenge.verifier.rubric) {
    const outcome = await score(line.check, line.points, challenge, input, sandbox);
    const points = outcome.points === 'all' ? line.points : Math.min(outcome.points, line.points);
    rubric.push({ id: line.id, points, max_points: line.points, note: outcome.note });
  }
  return {
    score: rubric.reduce((sum, line) => sum + line.points, 0),
    max_score: rubric.reduce((sum, line) => sum + line.max_points, 0),
    rubric,
  };
}
