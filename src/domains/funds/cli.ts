import { z } from 'zod';
import { type CliDoor, defineCommand } from '../../framework/index.ts';
import { emailFlag, type IdentityService } from '../identity/index.ts';
import { ManualCredit } from './funding.ts';
import { FundsService } from './funds-service.ts';
import { toMinor } from './money.ts';

/** The operator's credit (docs/rewards.md "The operator"): `cairn funds add`. */

interface FundsCliServices {
  funds: FundsService;
}

const define = defineCommand<FundsCliServices & { identity: IdentityService }>();

const FUNDS_COMMANDS = {
  'funds add': define({
    usage:
      "cairn funds add --owner E (--points N | --usd N) [--note T] [--reference R] [--json]   (credits the owner's balance; audited; a repeated --reference credits once)",
    flags: z
      .object({
        owner: emailFlag,
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
};

export const fundsCli: CliDoor<FundsCliServices, FundsCliServices & { identity: IdentityService }> = {
  // The CLI signs no cursors, so the service gets no server secret.
  services: ({ database, clock, config }) => ({
    funds: new FundsService(database, clock, '', new ManualCredit(), config.platformFeePct),
  }),
  commands: FUNDS_COMMANDS,
};
