import { z } from 'zod';

/** String argument schemas with no control characters (PostgreSQL text cannot even hold NUL). */

const NO_CONTROLS = /^\P{Cc}*$/u;
const NO_CONTROLS_BUT_WHITESPACE = /^(?:[\t\n\r]|\P{Cc})*$/u;

/** One line: no control characters at all. */
export const plainLine = (min: number, max: number) =>
  z.string().min(min).max(max).regex(NO_CONTROLS, 'must not contain control characters');

/** Text: tabs and line breaks allowed, no other control characters. */
export const plainText = (min: number, max: number) =>
  z.string().min(min).max(max).regex(NO_CONTROLS_BUT_WHITESPACE, 'must not contain control characters');
