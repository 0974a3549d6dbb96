import { z } from 'zod';

/** The shape of a Cairn id of one kind: its prefix, an underscore, 1 to 64 letters and digits. */
export const idPattern = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`);

/** A Cairn id of one kind in a path or body (`cmp_…`, `evd_…`), refused with what it should look like. */
export const idOf = (prefix: string, what: string) =>
  z.string().regex(idPattern(prefix), `a ${what} id starts with ${prefix}_`);
