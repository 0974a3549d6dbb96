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
  /** The success status it answers with (201 where it creates); 200 by default. */
  status?: 200 | 201;
  /** Fields of its body that carry files (read off the main thread when large: web/http/large-body.ts). */
  payload?: PayloadFields;
  run(ctx: DoorContext<N>, input: OwnerInput, http: { req: FastifyRequest; reply: FastifyReply }): unknown;
}

/** What a handler is given: the owner it acts for and the validated input. */
export interface OwnerInput<P = unknown, Q = unknown, B = unknown> {
  ownerId: string;
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
    P extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
  >(
    spec: Omit<OwnerOperation<N>, 'run' | 'params' | 'query' | 'body'> & {
      params?: P;
      query?: Q;
      body?: B;
      run(
        ctx: DoorContext<N>,
        input: OwnerInput<Infer<P>, Infer<Q>, Infer<B>>,
        http: { req: FastifyRequest; reply: FastifyReply },
      ): unknown;
    },
  ): OwnerOperation<N> => spec as OwnerOperation<N>;
}
