import { z } from 'zod';
import type { Config } from '../config/config.ts';
import type { ArenaKeys } from '../domains/arena/index.ts';
import type { RewardOwnerService } from '../domains/campaigns/index.ts';
import { type FundsService, toMinor } from '../domains/funds/index.ts';
import type { IdentityService } from '../domains/identity/index.ts';
import { LIMITS } from '../kernel/limits.ts';
import { ARENA_COMMANDS } from './arena-commands.ts';

/** The admin sub-commands: flags, validation and what each does, one definition each. */

export interface Command<F extends z.ZodObject> {
  usage: string;
  flags: F;
  /** The flag that the word after the command's name fills (`cairn arena verify-score FILE`). */
  operand?: string;
  /** Reads a secret (a password, a key) from stdin before opening the database, never from argv. */
  stdin?: { what: string; min: number; max: number };
  run(services: CliServices, flags: z.infer<F>, secret: string): Promise<object>;
}

/** A command that opens no database (an offline check): it gets the configuration, no services. */
export interface OfflineCommand<F extends z.ZodObject> extends Omit<Command<F>, 'run' | 'stdin'> {
  offline: true;
  run(flags: z.infer<F>, config: Config): Promise<object>;
}

/** What the admin commands act through: the same services the server uses. */
export interface CliServices {
  identity: IdentityService;
  funds: FundsService;
  rewards: RewardOwnerService;
  /** Stopping, resuming and closing a campaign on its owner's behalf (docs/campaign-lifecycle.md). */
  campaigns: {
    close(campaignId: string, reason?: string): Promise<object>;
    stop(campaignId: string, reason?: string): Promise<object>;
    resume(campaignId: string): Promise<object>;
  };
  /** The score-signing keys; made on first use, since only they need the server secret. */
  arenaKeys(): Promise<ArenaKeys>;
}

const define = <F extends z.ZodObject>(c: Command<F>) => c;

const campaignIdFlag = z
  .string()
  .trim()
  .regex(/^cmp_[0-9A-Za-z]{1,64}$/, 'must be a campaign id (cmp_…)');

/** Flags that take no value (`--reviewer`); every other flag is a string its command's schema checks. */
export const BOOLEAN_FLAGS: ReadonlySet<string> = new Set(['reviewer']);

const email = z.string().trim().email('must be an email address').max(LIMITS.email.maxChars);
const agentId = z.string().regex(/^agt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an agent id (agt_…)');

/** --days for a credential's life, within its published range. */
const daysFlag = (range: { min: number; max: number; default: number }) =>
  z.coerce.number().int().min(range.min).max(range.max).default(range.default);

export const COMMANDS = {
  'owner add': define({
    usage:
      'cairn owner add --email E [--reviewer] [--json]   (password read from stdin; --reviewer also names the account an Arena reviewer)',
    flags: z.object({ email, reviewer: z.literal(true).optional() }).strict(),
    stdin: { what: 'password', min: LIMITS.password.minChars, max: LIMITS.password.maxChars },
    run: ({ identity }, f, password) =>
      identity.addOwner(f.email, password, { reviewer: f.reviewer === true }),
  }),
  'owner reviewer': define({
    usage:
      'cairn owner reviewer --email E --enabled true|false [--json]   (names the owner account an Arena reviewer, who decides reports and appeals; or no longer)',
    flags: z.object({ email, enabled: z.enum(['true', 'false']) }).strict(),
    run: ({ identity }, f) => identity.setArenaReviewer(f.email, f.enabled === 'true'),
  }),
  'owner token add': define({
    usage: `cairn owner token add --email E [--days D] [--name N] [--json]   (an owner API token cd_own_… for the /v1 owner operations, printed once; D ${LIMITS.ownerTokenDays.min}-${LIMITS.ownerTokenDays.max}, default ${LIMITS.ownerTokenDays.default})`,
    flags: z
      .object({
        email,
        days: daysFlag(LIMITS.ownerTokenDays),
        name: z.string().trim().min(1).max(LIMITS.ownerTokenName.maxChars).default('cli'),
      })
      .strict(),
    run: ({ identity }, f) => identity.addOwnerToken(f.email, f.name, f.days),
  }),
  'owner token list': define({
    usage: "cairn owner token list --email E [--json]   (the owner's API tokens, never their secrets)",
    flags: z.object({ email }).strict(),
    run: ({ identity }, f) => identity.listOwnerTokens(f.email),
  }),
  'owner token revoke': define({
    usage:
      "cairn owner token revoke --email E --id otk_… [--json]   (revokes one of the owner's API tokens at once)",
    flags: z
      .object({
        email,
        id: z
          .string()
          .trim()
          .regex(/^otk_[0-9A-Za-z]{1,60}$/, 'an owner token id (otk_…)'),
      })
      .strict(),
    run: ({ identity }, f) => identity.revokeOwnerToken(f.email, f.id),
  }),
  'agent add': define({
    usage: 'cairn agent add --owner E --name N [--runtime R] [--json]',
    flags: z
      .object({
        owner: email,
        name: z.string().trim().min(1).max(LIMITS.displayName.maxChars),
        runtime: z.string().trim().min(1).max(LIMITS.runtime.maxChars).default('unspecified'),
      })
      .strict(),
    run: ({ identity }, f) =>
      identity.addAgent({
        ownerEmail: f.owner,
        displayName: f.name,
        runtime: f.runtime,
        kind: 'OWNER_CREATED',
      }),
  }),
  'key add': define({
    usage: `cairn key add --agent AGT [--days D] [--json]   (D ${LIMITS.projectKeyDays.min}-${LIMITS.projectKeyDays.max}, default ${LIMITS.projectKeyDays.default})`,
    flags: z
      .object({
        agent: agentId,
        days: daysFlag(LIMITS.projectKeyDays),
      })
      .strict(),
    run: ({ identity }, f) => identity.addProjectKey(f.agent, f.days),
  }),
  'key revoke': define({
    usage: 'cairn key revoke [--json]   (the project key read from stdin; it stops working at once)',
    flags: z.object({}).strict(),
    stdin: { what: 'project key', min: 1, max: 512 },
    run: ({ identity }, _f, key) => identity.revokeProjectKey(key),
  }),
  'agent mode': define({
    usage:
      'cairn agent mode --agent AGT --mode READ|CAMPAIGN|NONE [--json]   (READ: public reading and campaigns; CAMPAIGN: campaign work only; NONE: inert everywhere, campaigns included)',
    flags: z.object({ agent: agentId, mode: z.enum(['READ', 'CAMPAIGN', 'NONE']) }).strict(),
    run: ({ identity }, f) => identity.setMode(f.agent, f.mode),
  }),
  'agent suspend': define({
    usage:
      'cairn agent suspend --agent AGT --reason R [--json]   (nothing works for it but identity_whoami and capabilities_describe, which give the reason; its mode is kept)',
    flags: z.object({ agent: agentId, reason: z.string().trim().min(1).max(500) }).strict(),
    run: ({ identity }, f) => identity.suspendAgent(f.agent, f.reason),
  }),
  'agent unsuspend': define({
    usage:
      'cairn agent unsuspend --agent AGT [--json]   (lifts a suspension: the identity is back in its mode)',
    flags: z.object({ agent: agentId }).strict(),
    run: ({ identity }, f) => identity.unsuspendAgent(f.agent),
  }),
  'agent bootstrap': define({
    usage: `cairn agent bootstrap --agent AGT [--days D] [--json]   (a new bootstrap token, printed once; the old one stops working at once; D ${LIMITS.bootstrapDays.min}-${LIMITS.bootstrapDays.max}, default ${LIMITS.bootstrapDays.default})`,
    flags: z
      .object({
        agent: agentId,
        days: daysFlag(LIMITS.bootstrapDays),
      })
      .strict(),
    run: ({ identity }, f) => identity.reissueBootstrap(f.agent, f.days),
  }),
  'funds add': define({
    usage:
      "cairn funds add --owner E (--points N | --usd N) [--note T] [--reference R] [--json]   (credits the owner's balance; audited; a repeated --reference credits once)",
    flags: z
      .object({
        owner: email,
        points: z.coerce.number().int().min(1).max(100_000_000_000).optional(),
        usd: z.coerce.number().min(0.01).max(1_000_000_000).optional(),
        note: z.string().trim().min(1).max(500).optional(),
        reference: z.string().trim().min(8).max(100).optional(),
      })
      .strict()
      .refine((f) => (f.points === undefined) !== (f.usd === undefined), {
        message: 'give exactly one of --points and --usd (points and dollars are never converted)',
        path: ['points'],
      })
      .refine((f) => f.usd === undefined || toMinor('USD', f.usd) !== null, {
        message: 'at most two decimals (whole cents)',
        path: ['usd'],
      }),
    run: async ({ identity, funds }, f) => {
      const owner = await identity.requireOwner(f.owner);
      const currency = f.points !== undefined ? 'POINTS' : 'USD';
      return funds.credit({
        ownerId: owner.id,
        currency,
        amount: f.points ?? (toMinor('USD', f.usd as number) as number),
        actor: 'cli',
        note: f.note ?? null,
        reference: f.reference,
      });
    },
  }),
  'rewards check': define({
    usage:
      'cairn rewards check [--json]   (recomputes every balance from postings, proves each currency sums to zero and every escrow matches its task; exit 1 on any finding)',
    flags: z.object({}).strict(),
    run: async ({ funds, rewards }) => {
      const books = await funds.check();
      const tasks = await rewards.check();
      return { ok: books.ok && tasks.ok, funds: books, rewards: tasks };
    },
  }),
  'campaign close': define({
    usage:
      'cairn campaign close --campaign ID [--reason R] [--json]   (closes it for its owner of record: unfinished tasks are cancelled and refunded, boards withdrawn; docs/campaign-lifecycle.md)',
    flags: z
      .object({
        campaign: campaignIdFlag,
        reason: z.string().trim().min(1).max(500).optional(),
      })
      .strict(),
    run: ({ campaigns }, f) => campaigns.close(f.campaign, f.reason),
  }),
  'campaign stop': define({
    usage:
      'cairn campaign stop --campaign ID [--reason R] [--json]   (running leases finish; no new claims, tasks, members, mail or board entries; then resume or close it)',
    flags: z
      .object({ campaign: campaignIdFlag, reason: z.string().trim().min(1).max(500).optional() })
      .strict(),
    run: ({ campaigns }, f) => campaigns.stop(f.campaign, f.reason),
  }),
  'campaign resume': define({
    usage: 'cairn campaign resume --campaign ID [--json]   (a stopped campaign takes new work again)',
    flags: z.object({ campaign: campaignIdFlag }).strict(),
    run: ({ campaigns }, f) => campaigns.resume(f.campaign),
  }),
  'agent revoke': define({
    usage: 'cairn agent revoke --agent AGT [--json]   (every credential of it stops working at once)',
    flags: z.object({ agent: agentId }).strict(),
    run: ({ identity }, f) => identity.revokeAgent(f.agent),
  }),
  ...(ARENA_COMMANDS satisfies Record<string, AnyCommand>),
};

export type CommandName = keyof typeof COMMANDS;
export type AnyCommand = Command<z.ZodObject> | OfflineCommand<z.ZodObject>;

/** The command the words name, and its operand: the one word after a name that takes one. */
export function findCommand(
  words: string[],
): { command: AnyCommand; operand: Record<string, string> } | null {
  const all = COMMANDS as Record<string, AnyCommand>;
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
