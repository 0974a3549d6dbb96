import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../../parsing/json-body.ts';

/** JSON bodies as every route reads them; the rules live in parsing/json-body.ts, where the parser threads use them too. */
export { PrototypeKeyRefused, parseJsonBody } from '../../parsing/json-body.ts';

export function installJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
