import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  ArenaOwnerService,
  ArenaReviewService,
  SuperchallengeReviewService,
} from '../../domains/arena/index.ts';
import type {
  BoardService,
  CampaignOwnerService,
  FindingOwnerService,
  MailService,
  ResearchReports,
  RewardOwnerService,
} from '../../domains/campaigns/index.ts';
import type { FundsService } from '../../domains/funds/index.ts';
import type {
  ConsoleOwner,
  DeviceService,
  ManagementService,
  OAuthConsentService,
  OwnerService,
} from '../../domains/identity/index.ts';
import type { MatchingOwnerService } from '../../domains/matching/index.ts';
import type { ImportService, OwnerEvidence } from '../../domains/reading/index.ts';
import type {
  SkillArenaOwnerService,
  SkillGrantOwnerService,
  SkillHistoryOwnerService,
  SkillLibraryOwnerService,
  SkillLifecycleOwnerService,
  SkillOwnerService,
  SkillTaskOwnerService,
} from '../../domains/skills/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { BodyDecoder } from '../shared/large-body.ts';
import { Csrf, PRE_SESSION_MAX_MS } from './csrf.ts';
import type { SafeHtml } from './html.ts';

export interface ConsoleDeps {
  owners: OwnerService;
  management: ManagementService;
  device: DeviceService;
  /** Native OAuth: consent requests and connections. */
  oauth: OAuthConsentService;
  /** Campaigns as their owners manage them. */
  campaigns: CampaignOwnerService;
  /** Findings and STIX exports of the owner's campaigns. */
  ownerFindings: FindingOwnerService;
  /** Research reports the owner publishes. */
  researchReports: ResearchReports;
  /** Balances and postings of points and dollars, and the operator's credit. */
  funds: FundsService;
  /** Campaign mailboxes: address, attempts, access requests and grants. */
  mail: MailService;
  /** Public task boards: publish, change, withdraw. */
  boards: BoardService;
  /** Matching: consent per identity, campaigns' calls for applications, the owners' decisions. */
  matching: MatchingOwnerService;
  /** The Arena: the owner's activation per identity. */
  arena: ArenaOwnerService;
  /** Arena reports and appeals, for the reviewers the operator named. */
  arenaReview: ArenaReviewService;
  /** Superchallenges waiting for (and decided by) those reviewers. */
  arenaSuperchallenges: SuperchallengeReviewService;
  /** Skills: drafts, versions, imports and downloads of the owner's account. */
  skills: SkillOwnerService;
  /** Grants of the owner's skill versions. */
  skillGrants: SkillGrantOwnerService;
  /** Archive, block and privacy byte deletion of the owner's skills and versions. */
  skillLifecycle: SkillLifecycleOwnerService;
  /** History, activity, usage, diffs and distribution consents of the owner's versions. */
  skillHistory: SkillHistoryOwnerService;
  /** Campaign skill libraries of the owner's campaigns. */
  skillLibrary: SkillLibraryOwnerService;
  /** Skills attached to the owner's campaigns' tasks: attachments, usage, materials export. */
  skillTasks: SkillTaskOwnerService;
  /** Skill packages the owner shared to Arena challenge versions. */
  skillArena: SkillArenaOwnerService;
  /** Release requests to decide, tasks to fund or cancel. */
  ownerRewards: RewardOwnerService;
  /** The platform fee in percent (CAIRN_PLATFORM_FEE_PCT): a reward published from the console carries it. */
  feePct: number;
  /** Who operates the instance (CAIRN_OPERATOR_EMAILS, else the first owner), and owners by email for their credits. */
  operators: {
    isOperator(ownerId: string): Promise<boolean>;
    ownerByEmail(email: string): Promise<{ id: string; email: string }>;
    /** The Arena reviewers, and naming one (or no longer): an operator's, OPERATOR_REQUIRED otherwise. */
    arenaReviewers(ownerId: string): Promise<{ reviewers: Array<{ owner_id: string; email: string }> }>;
    setArenaReviewer(
      ownerId: string,
      email: string,
      enabled: boolean,
    ): Promise<{ owner_id: string; email: string; arena_reviewer: boolean; changed: boolean }>;
  };
  /** Research imports, and evidence as its owner reads it. */
  imports: ImportService;
  /** Reads large request bodies off the main thread (the parser pool). */
  bodies: BodyDecoder;
  ownerEvidence: OwnerEvidence;
  /** An agent's MCP bearer (cd_acc_, cd_prj_) resolved to its identity; throws when not valid. */
  agentOf(bearer: string): Promise<{ agentId: string; ownerId: string }>;
  /** The resolved server secret: CSRF tokens are keyed with it. */
  secret: string;
  baseUrl: string;
  clock: Clock;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in owner, set by the console's session hook. */
    owner?: ConsoleOwner;
    /** The stored id of the owner's console session (what the CSRF token is bound to). */
    ownerSessionId?: string;
    /** On `/v1/…`: the owner API token the request was authenticated with, when not a session. */
    ownerTokenId?: string;
    /** On the few `/v1/…` routes a worker calls with its own MCP credential: who it is. */
    agentCaller?: { agentId: string; ownerId: string };
  }
}

/** What every console route shares: the services, the CSRF signer and the cookie rules. */
export interface ConsoleContext extends ConsoleDeps {
  csrf: Csrf;
  /** Cookies are Secure (and __Host- prefixed) when the console is served over https. */
  secure: boolean;
  cookieName: { session: string; pre: string };
}

export function buildContext(deps: ConsoleDeps): ConsoleContext {
  const secure = deps.baseUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return {
    ...deps,
    csrf: new Csrf(deps.secret, deps.clock),
    secure,
    cookieName: { session: `${prefix}cairn_session`, pre: `${prefix}cairn_pre` },
  };
}

/** HttpOnly, SameSite=Lax, Path=/, Secure under https; a max age only for the pre-session cookie. */
export function cookieOptions(ctx: ConsoleContext, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: ctx.secure,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** The CSRF token of the signed-in owner's forms. */
export function sessionToken(ctx: ConsoleContext, req: FastifyRequest): string {
  return ctx.csrf.forSession(req.ownerSessionId ?? '');
}

/** The CSRF token of a signed-out form, setting a fresh pre-session cookie when needed. */
export function preSessionToken(ctx: ConsoleContext, req: FastifyRequest, reply: FastifyReply): string {
  let pre = req.cookies[ctx.cookieName.pre];
  if (!ctx.csrf.preSessionValid(pre)) {
    pre = ctx.csrf.newPreSession();
    reply.setCookie(ctx.cookieName.pre, pre, cookieOptions(ctx, PRE_SESSION_MAX_MS / 1000));
  }
  return ctx.csrf.forPreSession(pre);
}

/** Whether a signed-out form's token matches its pre-session cookie. */
export function preSessionValid(ctx: ConsoleContext, req: FastifyRequest): boolean {
  const pre = req.cookies[ctx.cookieName.pre];
  return (
    ctx.csrf.preSessionValid(pre) && ctx.csrf.matches(ctx.csrf.forPreSession(pre), formField(req, 'csrf'))
  );
}

/** Whether a signed-in form's token matches the owner's session. */
export function sessionTokenValid(ctx: ConsoleContext, req: FastifyRequest): boolean {
  return req.ownerSessionId !== undefined && ctx.csrf.matches(sessionToken(ctx, req), formField(req, 'csrf'));
}

/** One field of a posted form, when it is a single string. */
export function formField(req: FastifyRequest, name: string): string | undefined {
  const body = req.body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

export function sendPage(reply: FastifyReply, status: number, page: SafeHtml) {
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

/** 303 See Other: after a form post the browser fetches the next page with GET. */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('location', location).send();
}

/** Where sign-in sends the owner back to: only same-origin console and pairing paths. */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 512 || value.includes('\\')) return null;
  return /^\/(?:console|pair)(?:[/?][\x21-\x7e]*)?$/.test(value) ? value : null;
}

export function signInUrl(next: string | null): string {
  return next ? `/console/signin?next=${encodeURIComponent(next)}` : '/console/signin';
}
