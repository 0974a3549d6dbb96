import { defineSettings, z } from '../../config/settings.ts';

export interface FundsSettings {
  /** Platform fee in percent (0-50, two decimals), taken at funding on top of a reward. */
  platformFeePct: number;
}

/** The platform fee (docs/rewards.md): a percentage with at most two decimals, taken at funding. */
export const fundsSettings = defineSettings({
  env: {
    CAIRN_PLATFORM_FEE_PCT: z.coerce
      .number()
      .min(0)
      .max(50)
      .refine(
        (v) => Number.isInteger(Math.round(v * 100)) && Math.abs(v * 100 - Math.round(v * 100)) < 1e-9,
        { message: 'must have at most two decimals' },
      )
      .default(0),
  },
  read: (e) => ({ platformFeePct: e.CAIRN_PLATFORM_FEE_PCT }),
});
