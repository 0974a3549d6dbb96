import type { Agent } from '../../../framework/caller.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { tokenOnlyForm } from '../../../web/console/fields.ts';
import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField } from '../../../web/console/layout.ts';
import { type AgentPagePart, agentPageChange, type ManagementService } from '../../identity/index.ts';
import type { ArenaOwnerService } from '../owner-arena.ts';
import { arenaAssignForm, arenaForm } from './forms.ts';
import { type ArenaWork, arenaWork, PANEL_RUNS } from './views.ts';

const ASSIGNMENT_ID = /^asg_[0-9A-Z]{26}$/;

/** What the page says after each of the Arena's changes. */
const DONE = {
  arena_on: 'The Arena is on for this identity (connected sessions were told their tool list changed).',
  arena_off: 'The Arena is off for this identity (connected sessions were told).',
  arena_assigned:
    'Assigned. The identity was told (its tool list changed): its capabilities_describe shows the arena_start arguments, and unstarted the assignment expires within the hour.',
  arena_cancelled: 'Cancelled. The run ended for every member and its world was destroyed.',
};

/**
 * The Arena (docs/arena.md): a separate decision per identity, apart from READ and campaigns;
 * with it on, assignments and the identity's recent runs (views.ts).
 */
function arenaPanel(csrf: string, path: string, a: Agent, work: ArenaWork | undefined): SafeHtml {
  const state = a.arenaEnabled
    ? html`<span class="badge on">ON</span>`
    : html`<span class="badge off">OFF</span>`;
  return html`<section class="panel" id="arena">
      <h2>Arena</h2>
      <p class="hint">The Arena scores agents on synthetic exercises in an isolated workspace, with results signed by this server. It is a decision of its own, apart from public reading and campaigns.</p>
      <dl class="facts"><dt>Arena</dt><dd id="arena-state">${state}</dd></dl>
      <form method="post" action="${path}/arena">
        ${csrfField(csrf)}
        <label class="check"><input type="checkbox" name="enabled" value="on"${a.arenaEnabled ? html` checked` : ''}> Arena on for this identity</label>
        <div class="actions"><button class="secondary" type="submit">Save Arena</button></div>
      </form>
      ${a.arenaEnabled && work ? arenaWork(csrf, path, a.id, work) : ''}
    </section>`;
}

/**
 * The Arena's section of an identity's console page (identity/console/agent-parts.ts): the
 * switch, and with it on, assignments and the identity's recent runs. A guest identity has none.
 */
export function arenaAgentPart(ctx: {
  arena: ArenaOwnerService;
  management: ManagementService;
}): AgentPagePart {
  /** The panel's choices and the identity's recent runs (docs/arena.md). */
  const work = async (ownerId: string, id: string): Promise<ArenaWork> => {
    const [{ challenges }, identities, { runs }] = await Promise.all([
      ctx.arena.listChallenges(),
      ctx.management.listIdentities(ownerId),
      ctx.arena.listRuns(ownerId, { agentId: id, limit: PANEL_RUNS }),
    ]);
    const teammates = identities.filter((i) => i.agent_id !== id && i.status === 'ACTIVE');
    return { challenges, teammates, runs };
  };
  return {
    done: DONE,
    async panel({ owner, csrf, agent, path }) {
      if (agent.status === 'REVOKED' || agent.guestRequestId) return '';
      const shown = agent.arenaEnabled ? await work(owner.id, agent.id) : undefined;
      return arenaPanel(csrf, path, agent, shown);
    },
    changes: [
      agentPageChange('arena', arenaForm, async (owner, id, data) => {
        await ctx.arena.setActivation(owner.id, id, data.enabled);
        return data.enabled ? 'arena_on' : 'arena_off';
      }),
      // A SOLO challenge takes no teammates: the route drops any ticked. A teammate or challenge
      // version that is not found is a problem with the form, shown on the page like the others.
      agentPageChange('arena/assign', arenaAssignForm, async (owner, id, data) => {
        const { challenges } = await ctx.arena.listChallenges();
        const chosen = challenges.find(
          (c) => c.challenge_id === data.challengeId && c.version === data.version,
        );
        try {
          await ctx.arena.assign(owner.id, {
            agentId: id,
            challengeId: data.challengeId,
            version: data.version,
            teammates: chosen?.mode === 'SOLO' ? [] : data.teammates,
            publish: data.publish,
            showAgent: data.showAgent,
          });
        } catch (err) {
          if (err instanceof DomainError && err.code === 'NOT_FOUND' && err.details.agent_id !== id) {
            throw new DomainError('VALIDATION_FAILED', err.message, err.details);
          }
          throw err;
        }
        return 'arena_assigned';
      }),
      agentPageChange(
        'arena/assignments/:assignment_id/cancel',
        tokenOnlyForm,
        async (owner, _id, _data, req) => {
          const assignmentId = (req.params as { assignment_id?: string }).assignment_id ?? '';
          if (!ASSIGNMENT_ID.test(assignmentId)) throw new DomainError('NOT_FOUND', 'No such assignment.');
          await ctx.arena.cancel(owner.id, assignmentId);
          return 'arena_cancelled';
        },
      ),
    ],
  };
}
