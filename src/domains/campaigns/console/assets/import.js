/**
 * The console's import form (issue 16). Reads the chosen file, base64-encodes it and posts it
 * as JSON to POST /v1/research/imports (the owner API: the session cookie, JSON only, so no
 * CSRF token is needed and no other site can send it), then shows what was stored.
 *
 * Without this script the page cannot import (a browser sends a file on its own only as
 * multipart/form-data, which Cairn does not take) and says so. Nothing here builds markup from
 * strings: the server's answer goes in with textContent, links get their href set as a value.
 */

const form = document.getElementById('import-form');
if (form instanceof HTMLFormElement) setUp(form);

function setUp(form) {
  const result = document.getElementById('import-result');
  const submit = document.getElementById('import_submit');
  const campaign = document.getElementById('import_campaign');
  const task = document.getElementById('import_task');
  const maxBytes = Number(form.dataset.maxBytes);

  document.getElementById('import-needs-js')?.remove();
  submit.disabled = false;

  // The tasks of the campaign chosen, from task-choices (all pages); the first page came with the page.
  let choosing = 0;
  campaign.addEventListener('change', () => loadTasks(campaign.value, null, true));
  if (task.dataset.nextCursor) loadTasks(campaign.value, task.dataset.nextCursor, false);

  async function loadTasks(campaignId, cursor, fresh) {
    const mine = ++choosing;
    if (fresh) task.replaceChildren(option('', 'No task'));
    if (!campaignId) return;
    let next = cursor;
    for (let pages = 0; pages < 20; pages++) {
      const url = new URL(
        `${campaign.dataset.choices}${encodeURIComponent(campaignId)}/task-choices`,
        location.href,
      );
      if (next) url.searchParams.set('cursor', next);
      let page;
      try {
        const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
        if (!res.ok) return;
        page = await res.json();
      } catch {
        return;
      }
      // Another campaign was chosen meanwhile: its own load fills the list.
      if (mine !== choosing) return;
      for (const c of page.choices) task.append(option(c.task_id, `${c.title} (${c.status}) · ${c.task_id}`));
      next = page.next_cursor;
      if (!next) return;
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = form.elements.file.files[0];
    if (!file) return show('error', 'Choose a file first.');
    if (file.size === 0) return show('error', 'The file is empty.');
    if (file.size > maxBytes) {
      return show(
        'error',
        `The file is ${file.size} bytes; imports are accepted up to ${maxBytes} bytes (12 MiB).`,
      );
    }
    submit.disabled = true;
    show('info', `Importing ${file.name}…`);
    try {
      const body = { data_base64: await base64Of(file) };
      const text = (name) => form.elements[name].value.trim();
      for (const name of ['format', 'title', 'source_date', 'source_url', 'campaign_id', 'task_id']) {
        if (text(name)) body[name] = text(name);
      }
      if (form.elements.authorized.checked) body.authorized = true;
      if (form.elements.ocr.checked) body.ocr = true;
      const res = await fetch(form.dataset.endpoint, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = await res.json().catch(() => null);
      if (res.status === 201 && answer) {
        imported(answer);
        form.elements.file.value = '';
      } else {
        refused(res.status, answer);
      }
    } catch {
      show('error', 'The file could not be sent: the connection failed. Try again.');
    } finally {
      submit.disabled = false;
    }
  });

  function imported(a) {
    const facts = document.createElement('dl');
    facts.className = 'facts';
    const fact = (label, value) => {
      const dt = document.createElement('dt');
      dt.textContent = label;
      const dd = document.createElement('dd');
      dd.textContent = value;
      facts.append(dt, dd);
      return dd;
    };
    fact('Evidence id', a.evidence_id).id = 'import-evidence-id';
    fact('Format', a.format);
    fact('Pages', String(a.page_count));
    fact('Trust label', `${a.trust_label} (provenance ${a.provenance})`);
    fact('Body hash', a.body_hash);
    fact(
      'Campaign',
      a.campaign_id ? `${a.campaign_id}${a.task_id ? `, task ${a.task_id}` : ''}` : 'none: only you see it',
    );
    if (a.flags?.length) fact('Flags', a.flags.join(', '));
    const id = encodeURIComponent(a.evidence_id);
    const links = document.createElement('p');
    links.className = 'actions';
    links.append(
      link(`/console/research/evidence/${id}`, 'Open the preview', 'button'),
      link(`/v1/research/evidence/${id}/original`, 'Download the original', 'button secondary'),
    );
    show(
      'ok',
      'Imported. It is UNVERIFIED: Cairn kept the exact bytes and did not check where they came from.',
      [facts, links],
    );
  }

  function refused(status, answer) {
    const error = answer?.error;
    const extra = [];
    const problems = error?.details?.detail;
    if (Array.isArray(problems) && problems.length) {
      const list = document.createElement('ul');
      for (const p of problems) {
        const item = document.createElement('li');
        item.textContent = `${Array.isArray(p.loc) ? p.loc.filter((l) => l !== 'body').join('.') : ''}: ${p.msg}`;
        list.append(item);
      }
      extra.push(list);
    }
    if (error?.next_action) {
      const next = document.createElement('p');
      next.className = 'hint';
      next.textContent = error.next_action;
      extra.push(next);
    }
    show('error', error?.message ?? `The import was refused (HTTP ${status}).`, extra);
  }

  function show(kind, message, extra = []) {
    const note = document.createElement('p');
    note.className = `notice ${kind}`;
    note.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    note.textContent = message;
    result.replaceChildren(note, ...extra);
    result.hidden = false;
  }
}

function option(value, label) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  return o;
}

function link(href, label, className) {
  const a = document.createElement('a');
  a.href = href;
  a.className = className;
  a.textContent = label;
  return a;
}

/** The file's bytes as standard base64 (what a data: URL carries after its comma). */
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
