import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, type Signed } from '../../../web/console/views.ts';
import type { MailService } from '../owner-mail.ts';

/**
 * A campaign's mailbox for its owner of record (docs/mail.md): the address with the check-mail
 * instruction, the delivery state, usage against the limits, the stored mail (ticked and deleted
 * to make room), the agents' access (requests to decide, grants to revoke, what was declined or
 * revoked) and every delivery attempt. What a
 * sender wrote (From, Subject, Message-ID) and what an agent wrote (its reason) is untrusted
 * text: it goes through `html` like everything else, never as markup.
 */

export type Mailbox = Awaited<ReturnType<MailService['mailbox']>>;
export type Attempts = Awaited<ReturnType<MailService['attempts']>>;
export type StoredMail = Awaited<ReturnType<MailService['messages']>>;
type Access = Mailbox['access'][number];
type Attempt = Attempts['attempts'][number];
type Stored = StoredMail['mails'][number];

export interface MailPageView extends Signed {
  mailbox: Mailbox;
  /** The attempts shown: the newest page, or the page older than `before`. */
  attempts: Attempts;
  before: string | undefined;
  /** The stored mail shown: the newest page, or the page older than `mailBefore`. */
  stored: StoredMail;
  mailBefore: string | undefined;
  /** How many attempts (and stored mails) a page holds, said beside the list. */
  pageSize: number;
  flash?: string | undefined;
  error?: string | undefined;
  /** A deletion just done (from the redirect's counts): how much room it made. */
  deleted?: { count: number; bytes: number; evidenceKept: number } | undefined;
}

/** Why an attempt was refused, in words for the owner (the reason code is shown beside it). */
const REFUSAL_TEXT: Record<string, string> = {
  UNKNOWN_MAILBOX: 'No mailbox has that address.',
  CAMPAIGN_CLOSED: 'The campaign is closed, so its mailbox takes no mail.',
  CAMPAIGN_STOPPED: 'The campaign was stopping, so its mailbox took no mail.',
  MAILBOX_DISABLED: 'The mailbox is disabled.',
  MAILBOX_FULL: 'The mailbox was full. Nothing is deleted automatically: delete stored mail to make room.',
  TOO_LARGE: 'The message was over 2 MiB.',
  MALFORMED: 'The message could not be read.',
  REPLAYED: 'The provider sent a delivery it had sent before (a retry or a replay): it was not stored again.',
  BAD_SIGNATURE: 'The provider’s signature did not match.',
  STALE_TIMESTAMP: 'The provider’s signed timestamp was too old.',
};

const OUTCOME_TEXT: Record<string, string> = {
  ACCEPTED: 'Stored.',
  DUPLICATE: 'The same message again (same Message-ID and content): stored once.',
  DEFERRED:
    'Taken, and waiting to be read: the parser was busy or the message slow to read. Cairn reads it again shortly; it shows here as stored, or as refused should it stay unreadable.',
};

/** A byte count for people: "512 B", "3.4 KiB", "20 MiB". */
function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const kib = n / 1024;
  if (kib < 1024) return `${trim(kib)} KiB`;
  return `${trim(kib / 1024)} MiB`;
}
const trim = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

const agentCell = (a: Access) =>
  html`${a.agent_display_name ?? ''}${a.agent_display_name ? html`<br>` : ''}<code>${a.agent_id}</code>`;

export function mailPage(v: MailPageView): SafeHtml {
  const m = v.mailbox;
  const campaignPath = `/console/campaigns/${m.campaign_id}`;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Mailbox · ${m.campaign_title}`,
    current: 'campaigns',
    body: html`<p class="hint"><a href="${campaignPath}">← Back to the campaign</a></p>
      <h1>Mailbox ${m.status === 'READY' ? html`<span class="badge on" id="mail-status">READY</span>` : html`<span class="badge off" id="mail-status">CLOSED</span>`}</h1>
      <p class="sub">${m.campaign_title} · <code>${m.campaign_id}</code> · only you, its owner of record, see this page</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.deleted ? notice('ok', deletedText(v.deleted, m.full)) : ''}${v.error ? notice('error', v.error) : ''}
      ${addressPanel(m)}
      ${requestsPanel(v, campaignPath)}
      ${grantsPanel(v, campaignPath)}
      ${historyPanel(m)}
      ${storedPanel(v, campaignPath)}
      ${attemptsPanel(v, campaignPath)}`,
  });
}

function addressPanel(m: Mailbox): SafeHtml {
  const verified = m.delivery_state === 'VERIFIED';
  const u = m.usage;
  const r = m.retention_policy;
  return html`<section class="panel" id="address">
    <h2>Address</h2>
    <p id="check-instruction">Send a check mail to</p>
    <p><code class="secret" id="mail-address">${m.address}</code></p>
    <p class="hint">${
      verified
        ? 'Mail has reached this address, so delivery works end to end. Send another check mail whenever you want to test it again: it is listed under Delivery attempts below.'
        : 'From any mail account. When it arrives, the delivery state turns VERIFIED and the attempt is listed below. Until then READY only means the mailbox is enabled. If nothing arrives, look below for a refusal, and check that the domain’s MX record points at this Cairn or its mail provider.'
    }</p>
    <dl class="facts">
      <dt>Status</dt><dd>${m.status === 'READY' ? 'READY: the mailbox takes mail.' : 'CLOSED: the campaign is closed, so mail to this address is refused.'}</dd>
      <dt>Delivery</dt><dd><span class="badge${verified ? ' on' : ' bad'}" id="delivery-state">${m.delivery_state}</span> ${verified ? html`verified ${time(m.delivery_verified_at)}` : html`<span class="hint">no mail has arrived yet</span>`}</dd>
      <dt>Usage</dt><dd id="mail-usage">${u.messages.toLocaleString('en-US')} of ${r.max_messages.toLocaleString('en-US')} messages · ${bytes(u.bytes)} of ${bytes(r.max_bytes)}</dd>
      ${
        m.full || m.full_since
          ? html`<dt>Full</dt><dd id="mail-full"><span class="badge bad">FULL</span> ${m.full_since ? html`since ${time(m.full_since)}` : ''} <span class="hint">new mail is refused (MAILBOX_FULL) until there is room; nothing is deleted automatically: <a href="#stored-mail">delete stored mail</a> to make room</span></dd>`
          : ''
      }
      <dt>Retention</dt><dd>Nothing is deleted automatically. One message is at most ${bytes(r.max_payload_bytes)}; its text is kept up to ${r.max_text_chars.toLocaleString('en-US')} characters; attachments are kept as metadata only (name, type, size, sha256), never their bytes.</dd>
    </dl>
  </section>`;
}

function requestsPanel(v: MailPageView, campaignPath: string): SafeHtml {
  const pending = v.mailbox.access.filter((a) => a.status === 'REQUESTED');
  const rows = pending.map(
    (a) => html`<tr id="request-${a.request_id}">
      <td>${agentCell(a)}</td>
      <td class="summary">${lines(a.reason)}</td>
      <td>${time(a.requested_at)}</td>
      <td>
        <form class="inline" method="post" action="${campaignPath}/mail/requests/${a.request_id}">${csrfField(v.csrf)}
          <input type="hidden" name="decision" value="approve"><button type="submit">Approve</button></form>
        <form class="inline" method="post" action="${campaignPath}/mail/requests/${a.request_id}">${csrfField(v.csrf)}
          <input type="hidden" name="decision" value="decline"><button class="secondary" type="submit">Decline</button></form>
      </td>
    </tr>`,
  );
  return html`<section class="panel" id="access-requests">
    <h2>Requests to read the mail</h2>
    <p class="hint">An agent sees none of this campaign’s mail until you approve its request, whichever owner the agent has. The reason is the agent’s own words.</p>
    ${
      rows.length
        ? html`<table><thead><tr><th>Agent</th><th>Reason</th><th>Asked</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="hint">None waiting. Agents ask with <code>campaign_mail_request_access</code>.</p>`
    }
  </section>`;
}

function grantsPanel(v: MailPageView, campaignPath: string): SafeHtml {
  const granted = v.mailbox.access.filter((a) => a.status === 'GRANTED');
  const rows = granted.map(
    (a) => html`<tr id="grant-${a.agent_id}">
      <td>${agentCell(a)}</td>
      <td>${time(a.decided_at, 'at an unknown time')}</td>
      <td><form class="inline" method="post" action="${campaignPath}/mail/grants/${a.agent_id}/revoke">${csrfField(v.csrf)}
        <button class="secondary" type="submit">Revoke</button></form></td>
    </tr>`,
  );
  return html`<section class="panel" id="grants">
    <h2>Agents that may read the mail</h2>
    <p class="hint">Revoking takes effect at once: the agent’s next read, and any wait it is in, is refused.</p>
    ${
      rows.length
        ? html`<table><thead><tr><th>Agent</th><th>Granted</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="hint">None.</p>`
    }
  </section>`;
}

function historyPanel(m: Mailbox): SafeHtml {
  const ended = m.access.filter((a) => a.status === 'DECLINED' || a.status === 'REVOKED');
  const rows = ended.map(
    (a) => html`<tr id="ended-${a.agent_id}">
      <td>${agentCell(a)}</td>
      <td><span class="badge off">${a.status}</span></td>
      <td class="summary">${lines(a.reason)}</td>
      <td>${time(a.requested_at)}</td>
      <td>${time(a.decided_at, 'at an unknown time')}</td>
    </tr>`,
  );
  return html`<section class="panel" id="access-history">
    <h2>Declined and revoked</h2>
    <p class="hint">Each agent’s latest request that you declined or revoked; an agent may ask again with a new reason. Every request and decision is also on the campaign’s ledger.</p>
    ${
      rows.length
        ? html`<table><thead><tr><th>Agent</th><th>Status</th><th>Reason</th><th>Asked</th><th>Decided</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="hint">None.</p>`
    }
  </section>`;
}

/** The confirmation after "Delete selected": how much room it made, and what stays. */
function deletedText(d: NonNullable<MailPageView['deleted']>, full: boolean): string {
  const mails = d.count === 1 ? '1 mail' : `${d.count.toLocaleString('en-US')} mails`;
  const kept =
    d.evidenceKept === 0
      ? ''
      : d.evidenceKept === 1
        ? ' The evidence made from one of them stays: it is a record of its own.'
        : ` The evidence made from ${d.evidenceKept} of them stays: each is a record of its own.`;
  const state = full ? ' The mailbox is still full.' : ' The mailbox has room: new mail is taken again.';
  return `Deleted ${mails}: ${bytes(d.bytes)} freed.${state}${kept}`;
}

function storedRow(s: Stored): SafeHtml {
  const none = html`<span class="hint">none given</span>`;
  return html`<tr id="mail-${s.mail_id}">
    <td><input type="checkbox" name="mail_ids" value="${s.mail_id}" aria-label="Select mail ${s.mail_id}"></td>
    <td>${time(s.received_at)}<p class="hint">${s.via}</p></td>
    <td>${s.from ?? none}</td>
    <td>${s.subject ?? none}<p class="hint"><code>${s.mail_id}</code></p></td>
    <td>${bytes(s.size)}${s.attachments ? html`<p class="hint">${s.attachments === 1 ? '1 attachment' : `${s.attachments} attachments`} (metadata only)</p>` : ''}</td>
    <td>${s.flags.map((f) => html`<span class="badge off">${f}</span> `)}</td>
    <td>${s.evidence_id ? html`<code>${s.evidence_id}</code><p class="hint">stays when the mail is deleted</p>` : ''}</td>
  </tr>`;
}

function storedPanel(v: MailPageView, campaignPath: string): SafeHtml {
  const list = v.stored.mails;
  const next = v.stored.next_before;
  const path = `${campaignPath}/mail`;
  return html`<section class="panel" id="stored-mail">
    <h2>Stored mail</h2>
    <p class="hint">The mail this mailbox holds, which counts against its limits. Nothing is deleted automatically: to make room, tick mails and press Delete selected. Deleting is for good; evidence made from a mail stays (it is a record of its own, which members may have cited), and the delivery attempts below keep their history. Newest first, ${v.pageSize} a page${v.mailBefore ? ', older than the ones before' : ''}. From and Subject are the sender’s words.</p>
    ${v.mailBefore ? html`<p class="hint"><a href="${path}#stored-mail">← Newest mail</a></p>` : ''}
    ${
      list.length
        ? html`<form method="post" action="${path}/messages/delete">${csrfField(v.csrf)}${v.mailBefore ? html`<input type="hidden" name="mail_before" value="${v.mailBefore}">` : ''}
          <table><thead><tr><th></th><th>Received</th><th>From</th><th>Subject</th><th>Size</th><th>Flags</th><th>Evidence</th></tr></thead>
          <tbody>${list.map(storedRow)}</tbody></table>
          <p class="actions"><button class="secondary" type="submit">Delete selected</button></p>
        </form>`
        : html`<p class="hint">${v.mailBefore ? 'No older mail.' : 'None stored.'}</p>`
    }
    ${next ? html`<p class="actions"><a class="button secondary" href="${path}?mail_before=${next}#stored-mail">Older mail</a></p>` : ''}
  </section>`;
}

function attemptRow(a: Attempt): SafeHtml {
  const refused = a.outcome === 'REFUSED';
  const why = refused
    ? html`<code>${a.reason ?? ''}</code> ${REFUSAL_TEXT[a.reason ?? ''] ?? ''}`
    : html`${OUTCOME_TEXT[a.outcome] ?? ''}`;
  const mail = a.mail
    ? html`<dl class="facts">
        <dt>From</dt><dd>${a.mail.from ?? html`<span class="hint">none given</span>`}</dd>
        <dt>Subject</dt><dd>${a.mail.subject ?? html`<span class="hint">none given</span>`}</dd>
        <dt>Message-ID</dt><dd>${a.mail.message_id ?? html`<span class="hint">none given</span>`}</dd>
        <dt>Mail</dt><dd><code>${a.mail_id}</code></dd>
      </dl>`
    : html`<span class="hint">${refused ? 'not read: nothing was stored' : a.mail_deleted ? html`deleted since (<code>${a.mail_id}</code>)` : 'not recorded'}</span>`;
  return html`<tr id="attempt-${a.attempt_id}">
    <td>${time(a.at)}</td>
    <td>${a.via}${a.remote ? html`<p class="hint">from ${a.remote}</p>` : ''}</td>
    <td><span class="badge${refused ? ' bad' : ' on'}">${a.outcome}</span><p class="hint">${why}</p></td>
    <td>${a.recipient ?? ''}${a.size !== null ? html`<p class="hint">${bytes(a.size)}</p>` : ''}</td>
    <td>${mail}</td>
  </tr>`;
}

function attemptsPanel(v: MailPageView, campaignPath: string): SafeHtml {
  const list = v.attempts.attempts;
  const next = v.attempts.next_before;
  const path = `${campaignPath}/mail`;
  return html`<section class="panel" id="attempts">
    <h2>Delivery attempts</h2>
    <p class="hint">Every attempt to deliver to this address, whichever way it came (SMTP, Mailgun, Postal): stored, duplicates, and refusals with their reason, so failures and a sender’s retries show here. Newest first, ${v.pageSize} a page${v.before ? ', older than the ones before' : ''}. A provider post refused before its recipient could be read (a bad signature, a stale timestamp) names no mailbox and is not listed here.</p>
    ${v.before ? html`<p class="hint"><a href="${path}#attempts">← Newest attempts</a></p>` : ''}
    ${
      list.length
        ? html`<table><thead><tr><th>When</th><th>Way in</th><th>Outcome</th><th>Recipient</th><th>Message</th></tr></thead>
          <tbody>${list.map(attemptRow)}</tbody></table>`
        : html`<p class="hint">${v.before ? 'No older attempts.' : 'None yet: nothing has tried to deliver to this address.'}</p>`
    }
    ${next ? html`<p class="actions"><a class="button secondary" href="${path}?attempts_before=${next}#attempts">Older attempts</a></p>` : ''}
  </section>`;
}
