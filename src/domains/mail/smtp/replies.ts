/**
 * SMTP replies of the receiver. smtp-server turns an error with `responseCode` into the reply and
 * puts the RFC 3463 enhanced status code of that reply code in front of the text itself (550 gets
 * 5.1.1, 451 gets 4.3.0, 552 gets 5.2.2), so a text here carries none.
 */

export type ReplyError = Error & { responseCode: number };

export function replyError(code: number, text: string): ReplyError {
  return Object.assign(new Error(replyText(text)), { responseCode: code });
}

type DeliverResult = { ok: true } | { ok: false; code: number; message: string };

/**
 * The reply to a delivery: 250 when it was taken; otherwise the code and text the delivery gave,
 * as long as the code is a 4xx or 5xx refusal (anything else is a fault of ours: 451, try later).
 */
export function deliveryReply(result: DeliverResult): { error: ReplyError | null; message?: string } {
  if (result.ok) return { error: null, message: 'Message accepted' };
  const code = Number.isInteger(result.code) && result.code >= 400 && result.code <= 599 ? result.code : 451;
  const text = replyText(result.message) || (code >= 500 ? 'Message refused' : 'Try again later');
  return { error: replyError(code, text) };
}

const MAX_TEXT = 200;

/**
 * One line of printable text: no line breaks or control characters (a reply must not be split),
 * no leading enhanced status code (the server adds its own), and not too long.
 */
export function replyText(text: string): string {
  return text
    .replace(CONTROL_CHARACTERS, ' ')
    .replace(/^\s*[245]\.\d{1,3}\.\d{1,3}\s+/, '')
    .trim()
    .slice(0, MAX_TEXT);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;
