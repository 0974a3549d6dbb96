import type { FastifyInstance } from 'fastify';
import { illFormedStrings, type ValidationDetail } from '../../kernel/validation.ts';

/**
 * The edge rule for strings on HTTP routes (issue 14 item 4): a body or query holding NUL or a
 * lone surrogate is refused before any route sees it, naming where. Each route scope's error
 * handler answers it in its own shape (422 with `detail` beside the envelope on `/v1`, the
 * console and discovery; `invalid_request` on the OAuth endpoints). `/mcp` is left to the tool
 * runner, which applies the same rule to tool arguments and answers as a tool error.
 */
export class IllFormedInput extends Error {
  readonly statusCode = 400;
  constructor(readonly detail: ValidationDetail[]) {
    super(`${detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')}.`);
    this.name = 'IllFormedInput';
  }
}

export function refuseIllFormedInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    if (req.url === '/mcp' || req.url.startsWith('/mcp?') || req.url.startsWith('/mcp/')) return;
    const detail = [...illFormedStrings(req.query, 'querystring'), ...illFormedStrings(req.body, 'body')];
    if (detail.length > 0) throw new IllFormedInput(detail);
  });
}
