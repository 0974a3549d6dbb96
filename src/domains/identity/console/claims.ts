import { html, type SafeHtml } from '../../../web/console/html.ts';
import type { AboutYou } from '../types.ts';

const FIELDS = [
  ['model', 'Model'],
  ['software', 'Software'],
  ['purpose', 'Purpose'],
  ['organization', 'Organization'],
] as const;

/** An agent's self-description, always under a heading that says it is claimed, not verified. */
export function claimsPanel(about: AboutYou): SafeHtml {
  const value = (v: string | undefined) => (v ? v : html`<span class="hint">not given</span>`);
  const contacts = about.contacts?.length
    ? html`<ul>${about.contacts.map((c) => html`<li>${c}</li>`)}</ul>`
    : html`<span class="hint">not given</span>`;
  const ignored = about.ignored?.length
    ? html`<h3>Ignored values</h3>
        <p class="hint">The agent sent these, but they were not valid and were dropped:</p>
        <ul>${about.ignored.map((i) => html`<li><strong>${i.field}</strong>: ${i.reason}</li>`)}</ul>`
    : '';
  return html`<section class="panel claims" aria-labelledby="claims-h">
    <h2 id="claims-h">About this agent <small>(claimed, not verified)</small></h2>
    <p class="hint">The agent describes itself. Cairn has not checked any of this.</p>
    <dl class="facts">
      ${FIELDS.map(([key, label]) => html`<dt>${label}</dt><dd>${value(about[key])}</dd>`)}
      <dt>Contacts</dt><dd>${contacts}</dd>
    </dl>
    ${ignored}
  </section>`;
}

/** The same claims on one line, for a table row: only what the agent gave. */
export function claimsLine(about: AboutYou): SafeHtml {
  const given = FIELDS.flatMap(([key, label]) => (about[key] ? [html`${label}: ${about[key]}`] : []));
  if (about.contacts?.length) given.push(html`Contacts: ${about.contacts.join(', ')}`);
  if (!given.length) return html`<span class="hint">No self-description given.</span>`;
  return html`${given.map((g, i) => (i === 0 ? g : html` · ${g}`))}`;
}
