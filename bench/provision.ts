import { randomBytes, randomUUID } from 'node:crypto';
import { runNode } from './children.ts';

/** Runs a Cairn CLI command in the benchmark's data dir and parses its --json answer. */
async function cli(env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<Record<string, string>> {
  const out = await runNode(
    `cairn ${args.slice(0, 2).join(' ')}`,
    ['bin/cairn.js', ...args, '--json'],
    env,
    stdin,
  );
  return JSON.parse(out) as Record<string, string>;
}

/**
 * An owner, an agent and a project key, made with the operator's CLI as a real deployment would
 * (with `mode`, that mode activated). On the embedded database this must happen before `serve`,
 * which locks the data dir. The email is unique because a PostgreSQL database may be reused.
 */
export async function provision(
  env: NodeJS.ProcessEnv,
  mode?: 'READ',
): Promise<{ agentId: string; key: string }> {
  const email = `bench-${randomUUID()}@example.org`;
  await cli(env, ['owner', 'add', '--email', email], `${randomBytes(12).toString('hex')}\n`);
  const { agent_id } = await cli(env, [
    'agent',
    'add',
    '--owner',
    email,
    '--name',
    'bench',
    '--runtime',
    'bench',
  ]);
  if (!agent_id) throw new Error('cairn agent add returned no agent_id');
  if (mode) await cli(env, ['agent', 'mode', '--agent', agent_id, '--mode', mode]);
  const { project_key } = await cli(env, ['key', 'add', '--agent', agent_id]);
  if (!project_key) throw new Error('cairn key add returned no project_key');
  return { agentId: agent_id, key: project_key };
}
