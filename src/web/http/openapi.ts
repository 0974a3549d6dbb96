import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * What `/openapi.json` says each operation answers (issue 39 item 5): its success status (200,
 * or 201 where a route creates something: its `config.answers` says so), refusals as Cairn's
 * error envelope (OAuth endpoints: `{error, error_description}`, RFC 6749 §5.2), 422 with
 * HTTPValidationError where the route validates input, and 503 when the database is away. The
 * schemas here document; they do not serialize (the routes send their own bodies).
 */

/** A route's success statuses, for the document: `config: answers([201])`. */
export const answers = (codes: number[]) => ({ answers: codes });

const ENVELOPE = {
  type: 'object',
  required: ['status', 'error'],
  properties: {
    status: { const: 'ERROR' },
    error: {
      type: 'object',
      required: ['code', 'retryable', 'message', 'other_readers', 'details', 'next_action'],
      properties: {
        code: { type: 'string', description: 'One of /v1/public/errors.' },
        retryable: { type: 'boolean' },
        message: { type: 'string' },
        other_readers: { enum: ['DO_NOT_BYPASS', 'WAIT_FOR_OWNER', 'ALLOWED'] },
        details: { type: 'object' },
        next_action: { type: 'string' },
        allowed_alternatives: {
          type: 'array',
          items: {
            type: 'object',
            required: ['action'],
            properties: {
              tool: { type: 'string' },
              action: { type: 'string' },
              arguments: { type: 'object' },
            },
          },
        },
      },
    },
  },
};

const VALIDATION = {
  type: 'object',
  title: 'HTTPValidationError',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        title: 'ValidationError',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
          msg: { type: 'string' },
          type: { type: 'string' },
        },
      },
    },
  },
};

const OAUTH_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'One of oauth_errors in /v1/public/errors.' },
    error_description: { type: 'string' },
  },
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'No content' };

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

export function openApiTransform(input: TransformInput) {
  const out = jsonSchemaTransform(input);
  const schema = (out.schema ?? {}) as Record<string, unknown>;
  if (schema.hide) return out;
  const config = (input.route as { config?: { answers?: number[] } }).config;
  const refusal = out.url.startsWith('/oauth/') ? OAUTH_ERROR : ENVELOPE;
  const response: Record<string, unknown> = {};
  for (const code of config?.answers ?? [200]) {
    response[code] = { description: STATUS_TEXT[code] ?? 'OK', type: 'object' };
  }
  response['4XX'] = { description: 'Refused: the reason, and the next move', ...refusal };
  if (schema.body || schema.querystring || schema.params) {
    // The body also carries the envelope beside `detail` (code VALIDATION_FAILED).
    response[422] = { description: 'The input is not valid (HTTPValidationError)', ...VALIDATION };
  }
  response[503] = { description: 'The database cannot be reached; retry after Retry-After', ...ENVELOPE };
  return { ...out, schema: { ...schema, response } };
}
