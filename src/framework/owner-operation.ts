import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { PayloadFields } from '../kernel/payload.ts';
import type { DoorContext } from './door-context.ts';

/**
 * One operation of the owner `/v1` API, defined once (issue 41 item 2) the way `defineTool`
 * defines a tool: its method and path, its input schemas, who may call it, what it answers and
 * its handler. One adapter (transport/console/owner-api-routes.ts) serves every area's over HTTP
 * with the session-or-owner-token check, JSON-only bodies, the error envelope and the OpenAPI
 * entry; the handler sees only its parsed input and the owner.
 */
export interface OwnerOperation<N = object> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify's path syntax (`/v1/agents/:agent_id/mode`); its parameters are in `params`. */
  path: string;
  tags: ReadonlyArray<string>;
  summary: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * Who may call it. OWNER (the default): a console session or an owner API token. OWNER_OR_WORKER:
   * also an agent with its own MCP bearer (the task's worker), as `input.worker`. OWNER_OR_TICKET:
   * also the holder of a download ticket in the query, instead of a session.
   */
  audience?: 'OWNER' | 'OWNER_OR_WORKER' | 'OWNER_OR_TICKET';
  /** The success status it answers with (201 where it creates); 200 by default. */
  status?: 200 | 201;
  /** When the status depends on the answer (200 for what already existed, 201 for what it made). */
  statusOf?(answer: never): 200 | 201;
  /** It sends bytes itself (a file, a zip): no HEAD route, which would run it without sending them. */
  download?: boolean;
  /** A body limit above the server's ordinary one (file uploads that are read as large bodies). */
  bodyLimit?: number;
  /** Fields of its body that carry files (read off the main thread when large: web/http/large-body.ts). */
  payload?: PayloadFields;
  run(ctx: DoorContext<N>, input: OwnerInput, http: { req: FastifyRequest; reply: FastifyReply }): unknown;
}

/** What a handler is given: the owner it acts for and the validated input. */
export interface OwnerInput<P = unknown, Q = unknown, B = unknown> {
  /**
   * The owner the request acts for. Reading it without one (a worker's or a ticket's call) is
   * UNAUTHENTICATED, so an OWNER_OR_* handler reads it only on its owner's path (not destructured).
   */
  readonly ownerId: string;
  /** On an OWNER_OR_WORKER operation called with an agent's own bearer: who it is. */
  worker: { agentId: string; ownerId: string } | undefined;
  /** How the owner signed the request: a console session, or an owner API token (cd_own_). */
  by: 'SESSION' | 'TOKEN';
  params: P;
  query: Q;
  body: B;
}

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

/**
 * Defines an owner operation with its input types carried from the schemas to the handler.
 * `N` names the services it uses (the area's door services).
 */
export function defineOwnerOperation<N>() {
  return <
    R,
    P extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
  >(
    spec: Omit<OwnerOperation<N>, 'run' | 'params' | 'query' | 'body' | 'statusOf'> & {
      params?: P;
      query?: Q;
      body?: B;
      run(
        ctx: DoorContext<N>,
        input: OwnerInput<Infer<P>, Infer<Q>, Infer<B>>,
        http: { req: FastifyRequest; reply: FastifyReply },
      ): R | Promise<R>;
      statusOf?(answer: R): 200 | 201;
    },
  ): OwnerOperation<N> => spec as unknown as OwnerOperation<N>;
}
