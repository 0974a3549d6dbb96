/**
 * The console's campaign page, live (issue 15 item 4). Follows the page's event stream
 * (GET /console/campaigns/{id}/live): each new ledger event becomes a row of the ledger, and
 * the lists it changed (tasks, messages, members) are reloaded from the page itself.
 *
 * Progressive enhancement: without this script, or without EventSource, the page is what it
 * always was and a reload shows what changed. Nothing here builds markup from strings: event
 * fields go in with textContent, and a reloaded list is the server's own rendering of the page
 * (agents' words already escaped there), parsed inertly by DOMParser.
 */

const status = document.getElementById('live-status');
const stream = status?.dataset.stream;
if (status && stream && 'EventSource' in window) follow(status, stream);

function follow(status, stream) {
  const source = new EventSource(stream);
  // On an older page of the ledger, new events belong to the first page, not this one.
  const older = new URLSearchParams(location.search).has('ledger_before');
  const ledger = older ? null : document.querySelector('#ledger tbody');
  const pending = new Set();
  let timer = null;
  let latest = 0;

  source.addEventListener('open', () => show(status, 'on', 'live'));
  source.addEventListener('error', () => {
    // CLOSED: refused (signed out, too many pages open); otherwise the browser reconnects itself
    // and resumes after the last event it got (Last-Event-ID).
    if (source.readyState === EventSource.CLOSED) show(status, 'bad', 'not live: reload the page');
    else show(status, 'off', 'reconnecting…');
  });
  source.addEventListener('ledger', (message) => {
    const event = JSON.parse(message.data);
    if (ledger && Number.isSafeInteger(event.seq)) addRow(ledger, event);
    for (const section of event.sections) pending.add(section);
    // A burst of events (a claim, then a message) costs one reload of the lists.
    if (pending.size > 0 && timer === null) timer = setTimeout(refresh, 150);
  });

  async function refresh() {
    const sections = [...pending];
    pending.clear();
    timer = null;
    const mine = ++latest;
    // The page as shown (its "older" cursors kept), unless this is a form's answer at another address.
    const url = location.pathname === status.dataset.page ? location.href : status.dataset.page;
    try {
      const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      // Signed out (sent to sign in) or refused: the stream ends too and the badge says so.
      if (!res.ok || res.redirected) return;
      const page = new DOMParser().parseFromString(await res.text(), 'text/html');
      // A slower, older answer never replaces a newer one.
      if (mine !== latest) return;
      for (const name of sections) {
        const fresh = page.getElementById(`${name}-list`);
        const shown = document.getElementById(`${name}-list`);
        if (fresh && shown) shown.replaceWith(document.adoptNode(fresh));
      }
    } catch {
      // The network dropped: the next event, or a reload, brings the lists up to date.
    }
  }
}

function show(status, kind, text) {
  status.className = `badge ${kind}`;
  status.textContent = text;
}

/** The event as the page's ledger row, in seq order (newest first); a row already shown is kept. */
function addRow(tbody, event) {
  const rows = [...tbody.rows];
  if (rows.some((r) => Number(r.dataset.seq) === event.seq)) return;
  const row = document.createElement('tr');
  row.dataset.seq = String(event.seq);
  row.append(
    cell(String(event.seq)),
    cell(time(event.at)),
    cell(code(event.kind)),
    cell(...actor(event.actor)),
    cell(event.task_id ? code(event.task_id) : ''),
  );
  tbody.insertBefore(row, rows.find((r) => Number(r.dataset.seq) < event.seq) ?? null);
}

/** Who acted, as the page names them: a member's name, id and role; the owner; Cairn. */
function actor(a) {
  if (!a.agent_id) return [a.name];
  const role = element('span', a.role);
  role.className = 'hint';
  return a.name === a.agent_id ? [code(a.agent_id), ' ', role] : [a.name, ' ', code(a.agent_id), ' ', role];
}

/** A timestamp as the page writes it: readable UTC to the minute, exact in `datetime`. */
function time(iso) {
  const d = new Date(iso);
  const t = element('time', `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  t.dateTime = d.toISOString();
  return t;
}

function cell(...parts) {
  const td = document.createElement('td');
  td.append(...parts);
  return td;
}

function code(text) {
  return element('code', text);
}

function element(tag, text) {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}
