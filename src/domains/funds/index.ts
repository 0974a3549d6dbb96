import type { Area } from '../../framework/index.ts';
import { fundsCli } from './cli.ts';
import { FUNDS_ERRORS } from './errors.ts';
import { ManualCredit } from './funding.ts';
import { FundsService } from './funds-service.ts';
import { type FundsSettings, fundsSettings } from './settings.ts';
import * as tables from './tables.ts';

/**
 * Funds: the double-entry ledger of points and dollars (docs/rewards.md). It has no tools of its
 * own: task rewards (campaigns) move money through `post`, and owners see it through
 * FundsService. Nothing here pays out to the outside world.
 */

export type { FundsCheck } from './check.ts';
export { insufficientFunds } from './errors.ts';
export { type Credit, type FundingProvider, ManualCredit } from './funding.ts';
export { FundsService } from './funds-service.ts';
export {
  type Account,
  account,
  balanceOf,
  balancesByPrefix,
  escrowAccountKey,
  feeAccountKey,
  lockAccount,
  type Movement,
  ownerAccount,
  post,
  requireCovered,
} from './ledger.ts';
export {
  CURRENCIES,
  type Currency,
  feeOf,
  formatMoney,
  MAX_MINOR,
  type Money,
  money,
  toMinor,
} from './money.ts';

export const fundsArea = {
  name: 'funds',
  settings: fundsSettings,
  cli: fundsCli,
  tables,
  errors: FUNDS_ERRORS,
  operations: [],
  start({ database, clock, secret, config }) {
    return {
      services: {
        funds: new FundsService(database, clock, secret, new ManualCredit(), config.platformFeePct),
      },
      workers: [],
    };
  },
} satisfies Area;

type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** funds accounts. */
    fac: 'funds';
    /** funds transactions. */
    ftx: 'funds';
  }
}

/** Its settings, joined into Config (config/settings.ts). */
declare module '../../config/settings.ts' {
  interface AreaSettings extends FundsSettings {}
}
