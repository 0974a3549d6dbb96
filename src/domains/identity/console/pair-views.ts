import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import type { ConsoleOwner } from '../owners.ts';
import type { AboutYou } from '../types.ts';
import { claimsPanel } from './claims.ts';

interface Signed {
  owner: ConsoleOwner;
  csrf: string;
}

/** A GET form: looking a code up changes nothing, so it carries no token (and no token lands in a URL). */
export function codeEntryPage(v: Signed & { code?: string | undefined; error?: string }): SafeHtml {
  return page({
    ...v,
    title: 'Pair an agent',
    current: 'pair',
    body: html`<h1>Pair an agent</h1>
      <p class="sub">Your agent shows a link or a code like <code>BCDF-GHJK</code> when it starts pairing.</p>
      ${v.error ? notice('error', v.error) : ''}
      <form class="panel" method="get" action="/pair">
        <label for="code">Pairing code</label>
        <input id="code" name="code" type="text" required maxlength="32" autocomplete="off" autocapitalize="characters" value="${v.code ?? ''}">
        <div class="actions"><button type="submit">Continue</button></div>
      </form>`,
  });
}

export interface PendingPairing {
  user_code: string;
  display_name: string;
  runtime: string;
  requested_mode: string | null;
  about: AboutYou;
  expires_at: string;
  /** A guest pairing for a matching request (docs/matching.md), or null for an ordinary one. */
  guest: { matching_request_id: string; campaign_title?: string; refused?: string } | null;
}

export function approvalPage(v: Signed & { request: PendingPairing; error?: string }): SafeHtml {
  const r = v.request;
  return page({
    ...v,
    title: `Approve ${r.display_name}?`,
    current: 'pair',
    body: html`<h1>An agent asks to connect</h1>
      <p class="sub">Approve only if you started this on your own device and the code matches what it shows.</p>
      ${v.error ? notice('error', v.error) : ''}
      <section class="panel">
        <p class="hint">Code: check that your agent shows the same</p>
        <p class="code">${r.user_code}</p>
        <dl class="facts">
          <dt>Name</dt><dd><strong>${r.display_name}</strong></dd>
          <dt>Runtime</dt><dd>${r.runtime}</dd>
          <dt>Requested mode</dt><dd>${r.requested_mode ?? html`<span class="hint">none requested</span>`}</dd>
          <dt>Request expires</dt><dd>${time(r.expires_at)}</dd>
        </dl>
      </section>
      ${claimsPanel(r.about)}
      ${
        r.guest
          ? html`<section class="panel">
              <h2>Guest identity for a matching request</h2>
              ${
                r.guest.refused
                  ? notice('error', r.guest.refused)
                  : html`<p>Approving makes a guest identity that joins the campaign <strong>${r.guest.campaign_title ?? ''}</strong> at once, and works in that campaign only: no public reading, no matching, no other campaign. Only the owner of the agent that takes part in request <code>${r.guest.matching_request_id}</code> may approve it.</p>`
              }
            </section>`
          : ''
      }
      <form class="panel" method="post" action="/pair">
        ${csrfField(v.csrf)}
        <input type="hidden" name="code" value="${r.user_code}">
        ${
          r.guest
            ? ''
            : html`<label class="check"><input type="checkbox" id="activate_read" name="activate_read" value="on"> Activate public reading</label>
        <p class="hint">Lets it read public web pages through Cairn right away. Without it, the new identity can only describe itself until you activate it.</p>`
        }
        <div class="actions">
          <button type="submit" name="decision" value="approve">Approve</button>
          <button class="secondary" type="submit" name="decision" value="decline">Decline</button>
        </div>
      </form>`,
  });
}

export function decidedPage(
  v: Signed & { approved: boolean; name: string; agentId: string | null; activated: boolean },
): SafeHtml {
  const body = v.approved
    ? html`<h1>Approved: ${v.name} can now finish connecting</h1>
        ${notice(
          'ok',
          v.activated
            ? 'Public reading is active for it.'
            : 'It is inert until you activate a mode on its page.',
        )}
        <p class="actions">${v.agentId ? html`<a class="button" href="/console/identities/${v.agentId}">Open ${v.name}</a>` : ''}
          <a class="button secondary" href="/console">All identities</a></p>`
    : html`<h1>Declined</h1>
        ${notice('info', html`The request from ${v.name} was declined. It gets no access.`)}
        <p class="actions"><a class="button secondary" href="/console">All identities</a></p>`;
  return page({ ...v, title: v.approved ? 'Approved' : 'Declined', current: 'pair', body });
}
