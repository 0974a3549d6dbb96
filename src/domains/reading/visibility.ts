import type { Audience, Visibility } from '../../framework/index.ts';
import { type Caller, inactiveReason } from '../identity/index.ts';

/** Public wording of the Read tools' visibility rule. */
export const READ_VISIBLE_WHEN =
  "the identity's mode is READ (the owner activated public reading) or it is an active campaign member";

/**
 * Who may read (SPEC Authentication 10): an active READ connection or active campaign
 * membership. Inside a campaign each fresh read also needs a lease (checked when reading).
 */
export function whenReading(caller: Caller): Visibility {
  const reason = inactiveReason(caller.agent);
  if (reason) return { visible: false, why: reason.message };
  const member = caller.standing === 'MEMBER' || caller.standing === 'COORDINATOR';
  if (member) {
    return {
      visible: true,
      why: 'Available because the identity is an active campaign member; inside a campaign every fresh read needs a task lease.',
    };
  }
  if (caller.agent.mode === 'READ') {
    return { visible: true, why: 'Available because the owner activated public reading (mode READ).' };
  }
  return {
    visible: false,
    why: 'Reading needs public reading (mode READ) activated by the owner, or active campaign membership.',
  };
}

/** The Read tools' audience: the rule and its wording as one value. */
export const READERS: Audience = { visibleWhen: READ_VISIBLE_WHEN, visibility: whenReading };
