import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
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
export function createLogger(
  level: Config['logLevel'],
  destination?: DestinationStream,
  format: 'json' | 'pretty' = 'json',
): Logger {
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
  if (format === 'pretty') {
    // Readable lines for a person at a terminal; the same redaction and serializers apply.
    const stream = pretty({
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      singleLine: true,
      ...(destination ? { destination } : {}),
    });
    return pino(options, stream);
  }
  return destination ? pino(options, destination) : pino(options);
}

/** The format `auto` means here: readable lines when stdout is a terminal, JSON otherwise. */
export function logFormatFor(setting: Config['logFormat']): 'json' | 'pretty' {
  if (setting !== 'auto') return setting;
  return process.stdout.isTTY ? 'pretty' : 'json';
}

/** Requests too frequent or too dull to log at info: probes, metrics, the console's static files. */
export function isQuietRequest(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0];
  return (
    path === '/health' ||
    path === '/health/ready' ||
    path === '/metrics' ||
    path === '/console/style.css' ||
    path === '/console/favicon.svg'
  );
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
