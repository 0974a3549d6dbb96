import { z } from 'zod';

/**
 * The fields every console form is made of, bounded like the tools' arguments; messages are
 * written for the person who filled the form in. The areas' forms (`<area>/console/forms.ts`)
 * build on them; the domain checks everything again, since a form is one door of several.
 */

/** Control characters: never in a one-line field. */
export const CONTROLS = /[\p{Cc}]/u;
const CONTROLS_BUT_WHITESPACE = /[^\P{Cc}\t\n\r]/u;

/** The CSRF token every form carries (checked against the session by guardPost). */
export const csrf = z.string().max(200).optional();

/** A form of one button: nothing but its CSRF token. */
export const tokenOnlyForm = z.object({ csrf }).strict();

/** One line of text: required, trimmed, no control characters. */
export const line = (what: string, max: number) =>
  z
    .string({ message: `Enter ${what}.` })
    .trim()
    .min(1, `Enter ${what}.`)
    .max(max, `${capital(what)} must be at most ${max} characters.`)
    .refine((s) => !CONTROLS.test(s), `${capital(what)} must not contain control characters.`);

/** Text that may span lines, with a browser's CRLF line breaks as plain LF. */
export const text = (what: string, max: number) =>
  z
    .string()
    .transform((s) => s.replace(/\r\n?/g, '\n').trim())
    .pipe(
      z
        .string()
        .max(max, `${capital(what)} must be at most ${max} characters.`)
        .refine(
          (s) => !CONTROLS_BUT_WHITESPACE.test(s),
          `${capital(what)} must not contain control characters.`,
        ),
    );

/** Text that may span lines: required, trimmed, no control characters but line breaks and tabs. */
export const required = (what: string, max: number) =>
  text(what, max).pipe(z.string().min(1, `Enter ${what}.`));
/** The same, optional: empty is absent. */
export const optional = (what: string, max: number) =>
  text(what, max)
    .optional()
    .transform((s) => (s ? s : undefined));

/** Parses a posted form: the data, or one readable message naming what to fix. */
export function parseForm<T extends z.ZodType>(
  schema: T,
  body: unknown,
): { ok: true; data: z.infer<T> } | { ok: false; message: string } {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return { ok: true, data: parsed.data };
  const messages = parsed.error.issues.map((i) =>
    i.code === 'unrecognized_keys' ? `Unexpected form field: ${i.keys.join(', ').slice(0, 100)}.` : i.message,
  );
  return { ok: false, message: [...new Set(messages)].join(' ') };
}

/** The submitted text fields, cut to a bound, to fill the form in again after a problem. */
export function formValues(body: unknown, max = 10_000): Record<string, string> {
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object') return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>).slice(0, 40)) {
    if (k !== 'csrf' && typeof v === 'string') out[k] = v.slice(0, max);
  }
  return out;
}

export function capital(s: string): string {
  const bare = s.replace(/^(?:a|an|the) /, '');
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}
