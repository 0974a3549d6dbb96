import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config/config.ts';

/** Secrets never reach the log, whatever object they ride in. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.client_secret',
  '*.project_key',
  '*.device_code',
];

/**
 * The process logger. Requests are logged by path only: a query string can carry a credential
 * a careless client put there, and a log line must never hold one.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; id?: string; ip?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url?.split('?')[0],
        remoteAddress: req.ip,
      }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

const MAX_LOGGED_CHARS = 2_000;

/**
 * What the log keeps of an unexpected error. A failed query's own message and stack repeat every
 * parameter (a page's text, a caller's argument), so for an error with a cause only the cause is
 * kept, and every text is cut short.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err).slice(0, MAX_LOGGED_CHARS) };
  const inner = err.cause instanceof Error ? err.cause : null;
  const shown = inner ?? err;
  return {
    type: err.name,
    ...(inner ? { cause_type: inner.name } : {}),
    message: shown.message.slice(0, MAX_LOGGED_CHARS),
    stack: shown.stack?.slice(0, MAX_LOGGED_CHARS),
  };
}
