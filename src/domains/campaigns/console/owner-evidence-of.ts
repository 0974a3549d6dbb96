import { DomainError } from '../../../kernel/errors.ts';
import type { EvidenceRecord } from '../../reading/index.ts';
import type { ConsoleContext } from './context.ts';

/** The owner's view of evidence as the STIX export wants it: the record, or null when the owner may not see it. */
export function ownerEvidenceOf(ctx: ConsoleContext, ownerId: string) {
  return async (id: string): Promise<EvidenceRecord | null> => {
    try {
      return await ctx.ownerEvidence.get(ownerId, id);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  };
}
