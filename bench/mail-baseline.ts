import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * The baseline of the mail benchmark: a bare `smtp-server` that takes any recipient, parses each
 * message with mailparser's simpleParser and discards it. No database, no mailboxes, no parser
 * pool: what receiving and reading a message costs on this machine with the same two libraries
 * Cairn's receiver is built on. Its options match Cairn's receiver where they shape the
 * conversation (no AUTH, no STARTTLS, SIZE 2 MiB, no reverse lookup, 100 clients).
 *
 * Run as a child process: `PORT=… node --import tsx bench/mail-baseline.ts`.
 */

const MAX_BYTES = 2 * 1024 * 1024;

const server = new SMTPServer({
  name: 'baseline.bench.test',
  logger: false,
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  hideSTARTTLS: true,
  disableReverseLookup: true,
  size: MAX_BYTES,
  hideSize: false,
  maxClients: 100,
  onRcptTo(_address, _session, callback) {
    callback();
  },
  onData(stream, _session, callback) {
    simpleParser(stream).then(
      () => callback(),
      (err: Error) => callback(err),
    );
  },
});
server.on('error', (err) => process.stderr.write(`baseline smtp: ${err.stack ?? err}\n`));
server.listen(Number(process.env.PORT), '127.0.0.1');
// Nothing to flush: the baseline keeps nothing.
process.on('SIGTERM', () => process.exit(0));
