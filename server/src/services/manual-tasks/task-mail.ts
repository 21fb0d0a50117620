import type { Config } from '../../config';
import { mailerFor } from '../notifications/mailer';

interface TaskMail {
  owners: string[];
  integrationName: string;
  dueAt: Date;
  link: string;
  organizationName: string;
}

/**
 * Mails the owners their task link. The email names no identifier of the subject (the page
 * shows them); answers whether a mail went out (false when SMTP is not configured).
 */
export async function mailTask(config: Config, mail: TaskMail, kind: 'new' | 'reminder'): Promise<boolean> {
  const mailer = mailerFor(config);
  if (!mailer.enabled || mail.owners.length === 0) return false;
  const due = mail.dueAt.toISOString().slice(0, 10);
  await mailer.send({
    to: mail.owners,
    subject:
      kind === 'new'
        ? `Deletion task: ${mail.integrationName}`
        : `Reminder: deletion task for ${mail.integrationName} is open`,
    text: [
      kind === 'new'
        ? `${mail.organizationName} received a request to delete a person's data, and ${mail.integrationName} is a system you look after.`
        : `A deletion task for ${mail.integrationName} is still waiting for your answer.`,
      `Please answer by ${due}: open the task, delete the data as its instructions say, and tell us what you did (Done, Not found, or Cannot).`,
      '',
      mail.link,
      '',
      'The link works without an account and only for this task. Do not forward it.',
    ].join('\n'),
  });
  return true;
}
