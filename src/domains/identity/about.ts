import { IDENTITY_LIMITS } from './credentials/limits.ts';
import type { AboutYou } from './types.ts';

/** The claims an agent may make about itself (SPEC Agent identity, about_you). */
export const ABOUT_FIELDS = ['model', 'software', 'purpose', 'contacts', 'organization'] as const;
export type AboutField = (typeof ABOUT_FIELDS)[number];

export type AboutInput = Partial<Record<AboutField, unknown>>;

const EMAIL = /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}$/;

/**
 * Merges new claims into the old ones. A bad value is dropped, the old value kept, and the
 * reason recorded in `ignored`; `null` clears a claim.
 */
export function mergeAbout(previous: AboutYou, input: AboutInput, now: Date): AboutYou {
  const next: AboutYou = { ...previous };
  const ignored: Array<{ field: string; reason: string }> = [];
  for (const field of ABOUT_FIELDS) {
    if (!(field in input)) continue;
    const value = input[field];
    if (value === null) {
      delete next[field];
      continue;
    }
    const problem = field === 'contacts' ? checkContacts(value) : checkText(field, value);
    if (problem) {
      ignored.push({ field, reason: problem });
      continue;
    }
    if (field === 'contacts') next.contacts = (value as string[]).map((c) => c.trim());
    else next[field] = (value as string).trim();
  }
  next.ignored = ignored;
  next.updated_at = now.toISOString();
  return next;
}

function checkText(field: AboutField, value: unknown): string | null {
  const max =
    field === 'purpose' ? IDENTITY_LIMITS.aboutYou.purposeChars : IDENTITY_LIMITS.aboutYou.shortTextChars;
  if (typeof value !== 'string') return `must be text, got ${kindOf(value)}`;
  const text = value.trim();
  if (text.length === 0) return 'must not be empty (send null to clear it)';
  if (text.length > max) return `must be at most ${max} characters, got ${text.length}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) return 'must not contain control characters';
  return null;
}

function checkContacts(value: unknown): string | null {
  if (!Array.isArray(value)) return `must be a list of emails or https URLs, got ${kindOf(value)}`;
  if (value.length > IDENTITY_LIMITS.aboutYou.contacts)
    return `at most ${IDENTITY_LIMITS.aboutYou.contacts} contacts`;
  for (const c of value) {
    if (typeof c !== 'string') return `each contact must be text, got ${kindOf(c)}`;
    const contact = c.trim();
    if (contact.length > IDENTITY_LIMITS.aboutYou.contactChars) {
      return `each contact must be at most ${IDENTITY_LIMITS.aboutYou.contactChars} characters`;
    }
    if (!EMAIL.test(contact) && !isHttpsUrl(contact)) {
      return `"${contact.slice(0, 60)}" is neither an email address nor an https URL`;
    }
  }
  return null;
}

function isHttpsUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A ready question the agent can put to its user to fill or fix its claims; null when nothing is missing. */
export function askUser(about: AboutYou): string | null {
  if (about.ignored && about.ignored.length > 0) {
    const fields = about.ignored.map((i) => i.field).join(', ');
    return `Cairn could not record my ${fields} (${about.ignored[0]?.reason}). What should I give instead? This is shown to others as claimed, not verified.`;
  }
  const missing = ABOUT_FIELDS.filter((f) => about[f] === undefined);
  if (missing.length === 0) return null;
  return `May I tell Cairn my ${missing.join(', ')}? Others will see them labelled as claimed, not verified; each is optional.`;
}
