import type { FastifyInstance } from 'fastify';
import { countStatementsInto, type StatementTally } from '../../storage/statement-count.ts';

declare module 'fastify' {
  interface FastifyRequest {
    statementTally?: StatementTally;
  }
}

/**
 * `CAIRN_DEBUG_DB_STATEMENTS=true` (docs/performance.md, "Round trips"): every answer carries
 * `x-cairn-db-statements`, the SQL statements the request sent before its answer, authentication
 * included. The count follows the request's async context, which Node does not carry across the
 * body's stream events, so it is entered again before the handlers run. Work a request leaves
 * behind after answering (notifications, listeners) is not counted.
 */
export function countStatementsPerRequest(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const tally = { statements: 0 };
    req.statementTally = tally;
    countStatementsInto(tally, done);
  });
  app.addHook('preHandler', (req, _reply, done) => {
    if (!req.statementTally) return done();
    countStatementsInto(req.statementTally, done);
  });
  app.addHook('onSend', async (req, reply) => {
    if (req.statementTally) reply.header('x-cairn-db-statements', String(req.statementTally.statements));
  });
}
