import type { ConsoleOwner } from './context.ts';
import { html, type SafeHtml } from './html.ts';

/** Pieces of page every area's views use. */

/** What a page for a signed-in owner is rendered with: who, and the CSRF token of its forms. */
export interface Signed {
  owner: ConsoleOwner;
  csrf: string;
}

/** Text someone wrote, line breaks kept, every line escaped. */
export function lines(text: string): SafeHtml {
  const parts = text.split('\n');
  return html`${parts.map((l, i) => (i === 0 ? html`${l}` : html`<br>${l}`))}`;
}

/** A `<select>`'s options with `chosen` selected. */
export function options(
  values: ReadonlyArray<readonly [string, string]>,
  chosen: string | undefined,
): SafeHtml[] {
  return values.map(
    ([value, label]) =>
      html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`,
  );
}
