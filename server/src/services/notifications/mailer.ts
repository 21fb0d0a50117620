import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
}

export interface Mailer {
  /** False when SMTP_HOST is unset: nothing is sent, and callers say so where it matters. */
  enabled: boolean;
  send(message: MailMessage): Promise<void>;
}

type MailConfig = Pick<Config, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER' | 'smtpPassword' | 'SMTP_FROM'>;

const DISABLED: Mailer = {
  enabled: false,
  async send() {},
};

const mailers = new WeakMap<object, Mailer>();

/**
 * The email channel, one SMTP connection pool per configuration. Plain text only: every
 * message is a short notice with a link into the dashboard, never personal data of a subject.
 */
export function mailerFor(config: MailConfig): Mailer {
  if (!config.SMTP_HOST) return DISABLED;
  const cached = mailers.get(config);
  if (cached) return cached;
  const transport: Transporter = nodemailer.createTransport({
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    ...(config.SMTP_USER ? { auth: { user: config.SMTP_USER, pass: config.smtpPassword ?? '' } } : {}),
    pool: true,
    maxConnections: 2,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  const mailer: Mailer = {
    enabled: true,
    async send(message) {
      await transport.sendMail({
        from: config.SMTP_FROM,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
    },
  };
  mailers.set(config, mailer);
  return mailer;
}
