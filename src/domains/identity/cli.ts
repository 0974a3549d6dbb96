import { z } from 'zod';
import { type CliDoor, defineCommand } from '../../framework/index.ts';
import { IDENTITY_LIMITS } from './credentials/limits.ts';
import { mcpResource } from './credentials/oauth-request.ts';
import { IdentityService } from './identities.ts';

/**
 * Identity's operator commands (docs/cli.md): owner accounts, their API tokens and the Arena
 * reviewer flag; agents, their project keys, modes, suspension, bootstrap and revocation.
 */

interface IdentityCliServices {
  identity: IdentityService;
}

const define = defineCommand<IdentityCliServices>();

/** The e-mail of an owner account. */
export const emailFlag = z
  .string()
  .trim()
  .email('must be an email address')
  .max(IDENTITY_LIMITS.email.maxChars);
const email = emailFlag;
const agentId = z.string().regex(/^agt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an agent id (agt_…)');

/** --days for a credential's life, within its published range. */
const daysFlag = (range: { min: number; max: number; default: number }) =>
  z.coerce.number().int().min(range.min).max(range.max).default(range.default);

const IDENTITY_COMMANDS = {
  'owner add': define({
    usage:
      'cairn owner add --email E [--reviewer] [--json]   (password read from stdin; --reviewer also names the account an Arena reviewer)',
    flags: z.object({ email, reviewer: z.literal(true).optional() }).strict(),
    booleans: ['reviewer'],
    stdin: {
      what: 'password',
      min: IDENTITY_LIMITS.password.minChars,
      max: IDENTITY_LIMITS.password.maxChars,
    },
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
    usage: `cairn owner token add --email E [--days D] [--name N] [--json]   (an owner API token cd_own_… for the /v1 owner operations, printed once; D ${IDENTITY_LIMITS.ownerTokenDays.min}-${IDENTITY_LIMITS.ownerTokenDays.max}, default ${IDENTITY_LIMITS.ownerTokenDays.default})`,
    flags: z
      .object({
        email,
        days: daysFlag(IDENTITY_LIMITS.ownerTokenDays),
        name: z.string().trim().min(1).max(IDENTITY_LIMITS.ownerTokenName.maxChars).default('cli'),
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
        name: z.string().trim().min(1).max(IDENTITY_LIMITS.displayName.maxChars),
        runtime: z.string().trim().min(1).max(IDENTITY_LIMITS.runtime.maxChars).default('unspecified'),
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
    usage: `cairn key add --agent AGT [--days D] [--json]   (D ${IDENTITY_LIMITS.projectKeyDays.min}-${IDENTITY_LIMITS.projectKeyDays.max}, default ${IDENTITY_LIMITS.projectKeyDays.default})`,
    flags: z
      .object({
        agent: agentId,
        days: daysFlag(IDENTITY_LIMITS.projectKeyDays),
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
    usage: `cairn agent bootstrap --agent AGT [--days D] [--json]   (a new bootstrap token, printed once; the old one stops working at once; D ${IDENTITY_LIMITS.bootstrapDays.min}-${IDENTITY_LIMITS.bootstrapDays.max}, default ${IDENTITY_LIMITS.bootstrapDays.default})`,
    flags: z
      .object({
        agent: agentId,
        days: daysFlag(IDENTITY_LIMITS.bootstrapDays),
      })
      .strict(),
    run: ({ identity }, f) => identity.reissueBootstrap(f.agent, f.days),
  }),
  'agent revoke': define({
    usage: 'cairn agent revoke --agent AGT [--json]   (every credential of it stops working at once)',
    flags: z.object({ agent: agentId }).strict(),
    run: ({ identity }, f) => identity.revokeAgent(f.agent),
  }),
};

export const identityCli: CliDoor<IdentityCliServices> = {
  services: ({ database, clock, config }) => ({
    identity: new IdentityService(database, clock, mcpResource(config.baseUrl)),
  }),
  commands: IDENTITY_COMMANDS,
};
