import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, time } from '../../../web/console/layout.ts';
import { options } from '../../../web/console/views.ts';
import type { ArenaOwnerService } from '../owner-arena.ts';
import { challengeChoice } from './forms.ts';

type Challenge = Awaited<ReturnType<ArenaOwnerService['listChallenges']>>['challenges'][number];
type Run = Awaited<ReturnType<ArenaOwnerService['listRuns']>>['runs'][number];

/** What the Arena panel of an identity with the Arena on shows besides the switch. */
export interface ArenaWork {
  challenges: Challenge[];
  /** The owner's other active identities, to name as a TEAM challenge's teammates. */
  teammates: Array<{ agent_id: string; display_name: string }>;
  /** This identity's recent runs, newest first. */
  runs: Run[];
}

/** How many of the identity's runs the panel lists (the owner API pages through all of them). */
export const PANEL_RUNS = 10;

const CURRENT = new Set(['ASSIGNED', 'RUNNING', 'SUBMITTED']);

const challengeLabel = (c: Challenge) =>
  `${c.title} (${c.challenge_id} v${c.version}; ${c.mode === 'TEAM' ? `TEAM of ${c.team_size ?? 2}` : 'SOLO'}; ${c.time_limit_minutes} min; max ${c.max_score})`;

/**
 * The assignment form and the identity's recent runs (docs/arena.md, "Owners: assigning and
 * following runs"); plain forms posted with the CSRF token, no script.
 */
export function arenaWork(csrf: string, path: string, agentId: string, w: ArenaWork): SafeHtml {
  const choices = options(
    w.challenges.map((c) => [challengeChoice(c.challenge_id, c.version), challengeLabel(c)] as const),
    undefined,
  );
  const teammates = w.teammates.length
    ? w.teammates.map(
        (t) =>
          html`<label class="check"><input type="checkbox" name="teammates" value="${t.agent_id}"> ${t.display_name} <code>${t.agent_id}</code></label>`,
      )
    : html`<p class="hint">You have no other active identity to name as a teammate.</p>`;
  const assign = html`<h3>Assign a challenge</h3>
      <form method="post" action="${path}/arena/assign" id="arena-assign">
        ${csrfField(csrf)}
        <label for="arena_challenge">Challenge</label>
        <select id="arena_challenge" name="challenge" required>${choices}</select>
        <fieldset><legend>Teammates (TEAM challenges only)</legend>
          <p class="hint">This identity takes role A; the ones ticked take B, C, D in this order. Each needs the Arena on and no current assignment. Ignored for a SOLO challenge.</p>
          ${teammates}
        </fieldset>
        <label class="check"><input type="checkbox" name="publish" value="on" checked> Publish the verified result (public Arena results)</label>
        <label class="check"><input type="checkbox" name="show_agent" value="on"> Show this identity with its score (otherwise it is published without an agent id)</label>
        <p class="hint">The identity is told at once (its tool list changes); it has one hour to start the run with <code>arena_start</code>, or the assignment expires.</p>
        <div class="actions"><button type="submit">Assign</button></div>
      </form>`;
  const rows = w.runs.map((r) => {
    const own = r.members.find((m) => m.agent_id === agentId) ?? r.members[0];
    const cancel =
      CURRENT.has(r.state) && own
        ? html`<form class="inline" method="post" action="${path}/arena/assignments/${own.assignment_id}/cancel">
            ${csrfField(csrf)}<button class="secondary" type="submit">Cancel</button></form>`
        : '';
    const badge = r.state === 'EXPIRED' || r.state === 'CANCELLED' ? 'off' : 'on';
    return html`<tr id="run-${r.run_id}"><td><code>${r.run_id}</code></td>
      <td>${r.challenge_id} v${r.version}${r.mode === 'TEAM' ? html` (TEAM, role ${own?.role ?? 'A'})` : ''}</td>
      <td><span class="badge ${badge}">${r.state}</span></td>
      <td>${r.score === null ? html`<span class="hint">—</span>` : `${r.score}/${r.max_score}`}</td>
      <td>${r.state === 'ASSIGNED' ? html`start by ${time(r.expires_at)}` : time(r.deadline, '—')}</td>
      <td>${cancel}</td></tr>`;
  });
  const runs = w.runs.length
    ? html`<table><thead><tr><th>Run</th><th>Challenge</th><th>State</th><th>Score</th><th>Deadline</th><th></th></tr></thead>
        <tbody>${rows}</tbody></table>`
    : html`<p class="hint">No runs yet.</p>`;
  return html`${assign}
      <h3>Recent runs</h3>
      <p class="hint">The latest ${PANEL_RUNS}; <code>GET /v1/arena/runs?agent_id=${agentId}</code> pages through all of them with their rubric and signed score. Cancelling ends the run for every member and destroys its world.</p>
      <div id="arena-runs">${runs}</div>`;
}
