import { z } from 'zod';

/** A Cairn id of one kind in a path or body (`cmp_…`, `evd_…`), refused with what it should look like. */
export const idOf = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `a ${what} id starts with ${prefix}_`);
