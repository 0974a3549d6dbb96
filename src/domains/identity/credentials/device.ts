import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret, newId, newToken } from '../../../kernel/ids.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { type AboutInput, mergeAbout } from '../about.ts';
import * as agentRepo from '../agent-repo.ts';
import { recordAudit } from '../audit.ts';
import { changeMode } from '../management.ts';
import { addressKey } from '../owners.ts';
import { FailureThrottle, secondsUntil } from '../throttle.ts';
import type { AboutYou, Agent, GuestPairing } from '../types.ts';
import * as drepo from './device-repo.ts';
import { type DeviceRequest, formatUserCode, newUserCode, normalizeUserCode } from './device-request.ts';
import { IDENTITY_LIMITS } from './limits.ts';
import { findGrant, insertGrant } from './oauth-repo.ts';
import { mcpResource } from './oauth-request.ts';
import type { TokenAnswer, TokenService } from './tokens.ts';

const EXPIRES_IN_SECONDS = 15 * 60;
const INTERVAL_SECONDS = 5;
const SLOW_DOWN_STEP_SECONDS = 5;

/** Codes that match nothing, per owner and per address, before lookups are locked for a while. */
export const PAIR_LOOKUP_THROTTLE = {
  owner: { max: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 },
  address: { max: 30, windowMs: 15 * 60_000, lockMs: 15 * 60_000 },
} as const;

function pairingThrottled(until: Date, now: Date): DomainError {
  const seconds = secondsUntil(until, now);
  return new DomainError(
    'RATE_LIMITED',
    `Too many pairing codes that match nothing. Try again in ${Math.ceil(seconds / 60)} minutes.`,
    { retry_after_seconds: seconds },
  );
}

/** Device pairing: a runtime asks, the owner approves or declines on /pair, the runtime polls for tokens. */
export class DeviceService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tokens: TokenService,
    private readonly baseUrl: string,
    private readonly guests: GuestPairing,
  ) {
    this.throttle = new FailureThrottle(database, clock);
  }

  private readonly throttle: FailureThrottle;

  /**
   * Starts a pairing. With `matching_request_id` it is a guest pairing (docs/matching.md): the
   * bearer's agent (`participant`) must be the request's joining agent, and the request must wait
   * for a guest; the identity it makes is bound to that request's campaign alone.
   */
  async authorize(input: DeviceRequest, participant?: Agent, client?: { id: string; clientName: string }) {
    const now = this.clock.now();
    const { client_id: _id, client_secret: _secret, requested_mode, matching_request_id, ...rest } = input;
    const { display_name: named, runtime: ran, ...claims } = rest;
    const display_name = (named ?? client?.clientName)?.slice(0, IDENTITY_LIMITS.displayName.maxChars);
    const runtime =
      ran ?? (client ? `oauth:${client.clientName}`.slice(0, IDENTITY_LIMITS.runtime.maxChars) : undefined);
    if (!display_name || !runtime) {
      throw new OAuthError(
        'invalid_request',
        'Without client_id, name the runtime: display_name and runtime are required (or register a client and send its client_id).',
      );
    }
    const about = mergeAbout({}, claims as AboutInput, now);
    let guest: { campaignTitle: string } | null = null;
    if (matching_request_id !== undefined) {
      if (!participant) {
        throw new OAuthError(
          'invalid_token',
          'Guest pairing for a matching request needs Authorization: Bearer with the access token or project key of the agent that takes part in it.',
        );
      }
      const checked = await this.guests.check(this.database.db, matching_request_id, participant.id, now);
      if ('refused' in checked) throw new OAuthError('invalid_request', checked.refused);
      guest = { campaignTitle: checked.campaignTitle };
    }
    const deviceCode = newToken('dev');
    for (let attempt = 0; attempt < 5; attempt++) {
      const userCode = newUserCode();
      const inserted = await drepo.insertDevice(this.database.db, {
        id: newId('dva', now),
        deviceCodeHash: hashSecret(deviceCode),
        userCode,
        displayName: display_name,
        runtime,
        requestedMode: requested_mode ?? null,
        about: about as Record<string, unknown>,
        matchingRequestId: matching_request_id ?? null,
        requestedBy: guest && participant ? participant.id : null,
        clientId: client?.id ?? null,
        status: 'PENDING',
        intervalSeconds: INTERVAL_SECONDS,
        createdAt: now,
        expiresAt: new Date(now.getTime() + EXPIRES_IN_SECONDS * 1000),
      });
      if (!inserted) continue;
      const shown = formatUserCode(userCode);
      const complete = `${this.baseUrl}/pair?code=${shown}`;
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: `${this.baseUrl}/pair`,
        verification_uri_complete: complete,
        say_to_user: guest
          ? `To let ${display_name} join the campaign "${guest.campaignTitle}" as a guest identity (bound to that campaign alone), open ${complete} and approve the code ${shown}.`
          : `To connect ${display_name} to Cairn, open ${complete} and approve the code ${shown}.`,
        interval: INTERVAL_SECONDS,
        expires_in: EXPIRES_IN_SECONDS,
      };
    }
    throw new Error('could not find a free user code');
  }

  /**
   * What a signed-in owner sees for a typed code. Codes that match nothing count against the
   * owner and the address (RFC 8628 §5.1): guessing other people's pending codes is throttled.
   */
  async lookUpForOwner(ownerId: string, address: string, code: string) {
    const keys = [`pair:${ownerId}`, `pair-${addressKey(address)}`];
    const now = this.clock.now();
    const locked = await this.throttle.lockedUntil(keys);
    if (locked) throw pairingThrottled(locked, now);
    const found = await this.findForApproval(code);
    if (!found) {
      const lockedNow = await this.throttle.fail([
        { key: keys[0]!, rule: PAIR_LOOKUP_THROTTLE.owner },
        { key: keys[1]!, rule: PAIR_LOOKUP_THROTTLE.address },
      ]);
      if (lockedNow) throw pairingThrottled(lockedNow, now);
    }
    return found;
  }

  /** What the owner sees before deciding; null when no pending, unexpired request has this code. */
  async findForApproval(userCodeInput: string) {
    const row = await drepo.findPendingByUserCode(
      this.database.db,
      normalizeUserCode(userCodeInput),
      this.clock.now(),
    );
    if (!row) return null;
    return {
      user_code: formatUserCode(row.userCode),
      display_name: row.displayName,
      runtime: row.runtime,
      requested_mode: row.requestedMode,
      about: row.about as AboutYou,
      expires_at: row.expiresAt.toISOString(),
      guest: await this.guestOf(row),
    };
  }

  /** For a guest pairing: the campaign it joins and who must approve it; null for an ordinary pairing. */
  private async guestOf(row: drepo.DeviceRow) {
    if (!row.matchingRequestId || !row.requestedBy) return null;
    const checked = await this.guests.check(
      this.database.db,
      row.matchingRequestId,
      row.requestedBy,
      this.clock.now(),
    );
    return 'refused' in checked
      ? { matching_request_id: row.matchingRequestId, refused: checked.refused }
      : {
          matching_request_id: row.matchingRequestId,
          campaign_title: checked.campaignTitle,
        };
  }

  /**
   * The owner's decision. Approval creates the RUNTIME_BOUND identity (inert unless the owner
   * also activates public reading); either way the decision is audited.
   */
  async decide(
    ownerId: string,
    userCodeInput: string,
    decision: { approve: boolean; activateRead: boolean },
  ) {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const row = await drepo.findPendingByUserCode(tx, normalizeUserCode(userCodeInput), now, true);
      if (!row) {
        throw new DomainError(
          'NOT_FOUND',
          'No pending pairing has this code; it may have expired or been decided.',
        );
      }
      if (!decision.approve) {
        await drepo.updateDevice(tx, row.id, { status: 'DECLINED', ownerId, decidedAt: now });
        await recordAudit(
          tx,
          { ownerId, action: 'agent.decline', subjectId: row.id, details: { display_name: row.displayName } },
          now,
        );
        return { status: 'DECLINED' as const, agent_id: null };
      }
      const guest = row.matchingRequestId ? await this.approvableGuest(tx, row, ownerId, now) : null;
      const agentId = newId('agt', now);
      await agentRepo.insertAgent(tx, {
        id: agentId,
        ownerId,
        displayName: row.displayName,
        runtime: row.runtime,
        kind: 'RUNTIME_BOUND',
        createdAt: now,
        ...(guest ? { guestRequestId: guest.requestId, guestCampaignId: guest.campaignId } : {}),
      });
      await agentRepo.updateAgentAbout(tx, agentId, row.about as AboutYou, now);
      // A guest never reads outside its campaign: it gets no mode, whatever the form said.
      const activateRead = decision.activateRead && !guest;
      if (activateRead) await changeMode(tx, agentId, 'READ', now);
      if (guest)
        await this.guests.admit(tx, { requestId: guest.requestId, guestAgentId: agentId, ownerId }, now);
      // A registered client's pairing is an OAuth connection, as a consent makes one: its tokens
      // belong to that client alone, last as a connection does, and the owner revokes it there.
      const grantId = row.clientId ? newId('grt', now) : null;
      if (row.clientId && grantId) {
        await insertGrant(tx, {
          id: grantId,
          clientId: row.clientId,
          ownerId,
          agentId,
          scope: 'mcp',
          resource: mcpResource(this.baseUrl),
          approvedAt: now,
          expiresAt: new Date(now.getTime() + IDENTITY_LIMITS.oauthConnectionDays * 86_400_000),
        });
      }
      await drepo.updateDevice(tx, row.id, {
        status: 'APPROVED',
        ownerId,
        agentId,
        grantId,
        activateRead,
        decidedAt: now,
      });
      await recordAudit(
        tx,
        {
          ownerId,
          action: 'agent.approve',
          subjectId: agentId,
          details: {
            activate_read: activateRead,
            ...(guest ? { guest_for_matching_request: guest.requestId } : {}),
          },
        },
        now,
      );
      return { status: 'APPROVED' as const, agent_id: agentId };
    });
  }

  /**
   * A guest pairing is approved only by the owner of the agent that takes part in the request,
   * and only while the request still waits for a guest (checked again under the decision's lock).
   */
  private async approvableGuest(tx: Executor, row: drepo.DeviceRow, ownerId: string, now: Date) {
    const requestId = row.matchingRequestId as string;
    const checked = row.requestedBy
      ? await this.guests.check(tx, requestId, row.requestedBy, now)
      : { refused: 'This guest pairing names no participant.' };
    if ('refused' in checked)
      throw new DomainError('CONFLICT', checked.refused, { matching_request_id: requestId });
    if (checked.approverOwnerId !== ownerId) {
      throw new DomainError(
        'CONFLICT',
        'Only the owner of the agent that takes part in this matching request may approve its guest identity.',
        { matching_request_id: requestId },
      );
    }
    return { requestId, campaignId: checked.campaignId };
  }

  /**
   * The device grant at the token endpoint (RFC 8628 §3.4-3.5). `clientId` is the client the
   * poll authenticated as (or named, for a public one): a code a client asked for is that
   * client's alone; a runtime's code (no client) takes any.
   */
  async poll(deviceCode: string, clientId?: string): Promise<TokenAnswer> {
    const outcome = await this.database.transaction(async (tx): Promise<TokenAnswer | OAuthError> => {
      const now = this.clock.now();
      const row = await drepo.lockByDeviceCode(tx, hashSecret(deviceCode));
      if (!row) return new OAuthError('invalid_grant', 'Unknown device code.');
      if (row.clientId && clientId === undefined) {
        return new OAuthError(
          'invalid_request',
          'client_id is required: this device code was issued to a client.',
        );
      }
      if (row.clientId && row.clientId !== clientId) {
        return new OAuthError('invalid_grant', 'This device code was issued to another client.');
      }
      if (row.status === 'CONSUMED')
        return new OAuthError('invalid_grant', 'This device code was already exchanged.');
      if (row.status === 'DECLINED')
        return new OAuthError('access_denied', 'The owner declined this pairing.');
      // Expiry comes before approval: a device code that leaks later must yield nothing.
      if (row.expiresAt <= now)
        return new OAuthError('expired_token', 'The device code expired; start pairing again.');
      if (row.status === 'APPROVED') {
        await drepo.updateDevice(tx, row.id, { status: 'CONSUMED', lastPolledAt: now });
        if (row.grantId) {
          const grant = await findGrant(tx, row.grantId);
          return this.tokens.issuePair(tx, row.agentId!, row.grantId, grant?.expiresAt, grant?.scope);
        }
        return this.tokens.issuePair(tx, row.agentId!, row.id);
      }
      const tooSoon =
        row.lastPolledAt && now.getTime() - row.lastPolledAt.getTime() < row.intervalSeconds * 1000;
      if (tooSoon) {
        // Committed, not thrown: the longer interval must stick.
        const interval = row.intervalSeconds + SLOW_DOWN_STEP_SECONDS;
        await drepo.updateDevice(tx, row.id, { intervalSeconds: interval, lastPolledAt: now });
        return new OAuthError('slow_down', `Polling too fast; wait ${interval} seconds between requests.`);
      }
      await drepo.updateDevice(tx, row.id, { lastPolledAt: now });
      return new OAuthError(
        'authorization_pending',
        'The owner has not decided yet; poll again after the interval.',
      );
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }
}
