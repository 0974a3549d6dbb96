import { type Caller, inactiveReason } from '../identity/index.ts';
import type { Visibility } from '../operations/index.ts';

/** Public wording of the Read tools' visibility rule. */
export const READ_VISIBLE_WHEN =
  "the identity's mode is READ (the owner activated public reading) or it is an active campaign member";

/**
 * Who may read (SPEC Authentication 10): an active READ connection or active campaign
 * membership. Campaign membership joins this rule when campaigns land.
 */
export function whenReading(caller: Caller): Visibility {
  const reason = inactiveReason(caller.agent);
  if (reason) return { visible: false, why: reason.message };
  if (caller.agent.mode === 'READ') {
    return { visible: true, why: 'Available because the owner activated public reading (mode READ).' };
  }
  return {
    visible: false,
    why: 'Reading needs public reading (mode READ) activated by the owner, or active campaign membership.',
  };
}
