import type { ConsoleOwner } from './context.ts';
import { html, type SafeHtml } from './html.ts';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The signed-in owner; shows the navigation and the sign-out button. */
  owner?: ConsoleOwner | undefined;
  /** The session's CSRF token, for the sign-out form. */
  csrf?: string | undefined;
  /** Which navigation entry is current (its `key`). */
  current?: string;
  /** Single-column pages (sign-in, sign-up). */
  narrow?: boolean;
}

/** One entry of the console's navigation, declared by the area whose page it opens (`Doors.nav`). */
export interface NavEntry {
  key: string;
  href: string;
  label: string;
  /** Where it stands in the bar: entries are shown by this number, lowest first. */
  order: number;
}

/**
 * The navigation bar, gathered from the areas once when the console starts (the console shell
 * calls `setConsoleNav`). The same catalogue makes the same bar, so one list serves every server
 * in the process.
 */
let NAV: ReadonlyArray<NavEntry> = [];

export function setConsoleNav(entries: ReadonlyArray<NavEntry>): void {
  NAV = [...entries].sort((a, b) => a.order - b.order);
}

/** A whole console page: no scripts, no inline styles, one same-origin stylesheet. */
export function page(opts: PageOptions): SafeHtml {
  const nav = opts.owner
    ? html`<nav class="main" aria-label="Console">
        ${NAV.map(
          (e) =>
            html`<a href="${e.href}"${opts.current === e.key ? html` aria-current="page"` : ''}>${e.label}</a>`,
        )}
      </nav>
      <div class="who">
        <span>${opts.owner.email}</span>
        <form class="inline" method="post" action="/console/signout">
          ${csrfField(opts.csrf ?? '')}
          <button class="secondary" type="submit">Sign out</button>
        </form>
      </div>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${opts.title} · Cairn</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/style.css">
</head>
<body>
<header class="top"><a class="brand" href="/console">Cairn</a>${nav}</header>
<main${opts.narrow ? html` class="narrow"` : ''}>
${opts.body}
</main>
<footer>Cairn owner console</footer>
</body>
</html>
`;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

export function notice(kind: 'error' | 'ok' | 'info', text: string | SafeHtml): SafeHtml {
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

/** A timestamp as readable UTC, machine-readable in `datetime`; "never" when absent. */
export function time(iso: string | Date | null | undefined, never = 'never'): SafeHtml {
  if (!iso) return html`<span class="hint">${never}</span>`;
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  const shown = `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${d.toISOString()}">${shown}</time>`;
}

/** A page that only says something: an error, a refusal, a confirmation. */
export function messagePage(opts: {
  title: string;
  message: string | SafeHtml;
  kind?: 'error' | 'ok' | 'info';
  owner?: ConsoleOwner | undefined;
  csrf?: string | undefined;
  links?: Array<[href: string, label: string]>;
}): SafeHtml {
  const links = opts.links ?? [[opts.owner ? '/console' : '/console/signin', 'Back to the console']];
  return page({
    title: opts.title,
    owner: opts.owner,
    csrf: opts.csrf,
    narrow: !opts.owner,
    body: html`<h1>${opts.title}</h1>
      ${notice(opts.kind ?? 'error', opts.message)}
      <p class="actions">${links.map(([href, label]) => html`<a class="button secondary" href="${href}">${label}</a>`)}</p>`,
  });
}
