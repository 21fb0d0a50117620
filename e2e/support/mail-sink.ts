import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One mail the app sent, as the suites read it. */
export interface SentMail {
  to: string[];
  subject: string;
  text: string;
}

/**
 * A real SMTP server on loopback for the app under test: every message it accepts is appended
 * to `file` as a JSON line, so suites (in other processes) read what was mailed.
 */
export async function startMailSink(file: string) {
  fs.writeFileSync(file, '');
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const to = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) =>
            a.value.map((v) => v.address ?? ''),
          );
          const line: SentMail = { to, subject: mail.subject ?? '', text: mail.text ?? '' };
          fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mails sent so far (the global setup's sink writes them). */
export function sentMails(file: string): SentMail[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SentMail);
}
