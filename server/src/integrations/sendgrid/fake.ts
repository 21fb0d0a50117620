import { randomUUID } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, stepAt, type FakeVendor } from '../../test/fakes/vendor-server';

export interface SendgridContact {
  id: string;
  email: string;
  first_name: string;
  created_at: string;
}

export interface SendgridFakeState {
  apiKeys: Set<string>;
  contacts: Map<string, SendgridContact>;
  jobs: Map<string, { ids: string[]; createdAt: number }>;
  /** How long a delete job stays pending before it completes (and deletes). */
  jobMs: number;
  throttleNext: number;
  resetInSeconds: number;
}

const errors = (status: number, message: string, field: string | null = null) => ({
  status,
  body: { errors: [{ field, message }] },
});

/**
 * SendGrid v3 Marketing contacts: POST /v3/marketing/contacts/search/emails {emails} →
 * {result: {email: {contact}}} or 404, DELETE /v3/marketing/contacts?ids= → 202 {job_id},
 * GET /v3/marketing/contacts/imports/{id} → {id, status: pending|completed, job_type},
 * GET /v3/marketing/contacts/count. Bearer API key; 429 with X-RateLimit-Reset.
 */
export async function startSendgridFake(
  options: { jobMs?: number } = {},
): Promise<FakeVendor<SendgridFakeState> & { addContact(email: string): SendgridContact }> {
  const state: SendgridFakeState = {
    apiKeys: new Set(),
    contacts: new Map(),
    jobs: new Map(),
    jobMs: options.jobMs ?? 100,
    throttleNext: 0,
    resetInSeconds: 5,
  };
  const settle = (now: number) => {
    for (const job of state.jobs.values())
      if (stepAt(job.createdAt, [['pending', state.jobMs]], 'completed', now) === 'completed')
        for (const id of job.ids) state.contacts.delete(id);
  };
  const server = await startFakeServer((call) => {
    const key = bearerOf(call);
    if (!key || !state.apiKeys.has(key))
      return errors(401, 'The provided authorization grant is invalid, expired, or revoked');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        ...errors(429, 'too many requests'),
        headers: {
          'x-ratelimit-limit': '600',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(call.at / 1000) + state.resetInSeconds),
        },
      };
    }
    settle(call.at);
    if (call.path === '/v3/marketing/contacts/search/emails' && call.method === 'POST') {
      const emails = (jsonOf(call) as { emails?: unknown } | undefined)?.emails;
      if (
        !Array.isArray(emails) ||
        emails.length === 0 ||
        emails.length > 100 ||
        !emails.every((e) => typeof e === 'string')
      )
        return errors(400, 'emails must be a list of 1 to 100 email addresses', 'emails');
      const result: Record<string, { contact: SendgridContact }> = {};
      for (const email of emails as string[]) {
        const contact = [...state.contacts.values()].find((c) => c.email === email.toLowerCase());
        if (contact) result[email] = { contact };
      }
      return Object.keys(result).length ? { status: 200, body: { result } } : errors(404, 'No contacts found');
    }
    if (call.path === '/v3/marketing/contacts' && call.method === 'DELETE') {
      const ids = (call.query.get('ids') ?? '').split(',').filter(Boolean);
      if (ids.length === 0 && call.query.get('delete_all_contacts') !== 'true')
        return errors(400, 'ids or delete_all_contacts is required', 'ids');
      const jobId = randomUUID();
      state.jobs.set(jobId, { ids, createdAt: call.at });
      return { status: 202, body: { job_id: jobId } };
    }
    const job = /^\/v3\/marketing\/contacts\/imports\/([^/]+)$/.exec(call.path);
    if (job && call.method === 'GET') {
      const found = state.jobs.get(job[1]!);
      if (!found) return errors(404, 'job not found');
      const status = stepAt(found.createdAt, [['pending', state.jobMs]], 'completed', call.at);
      return {
        status: 200,
        body: {
          id: job[1],
          status,
          job_type: 'delete',
          results: { requested_count: found.ids.length, deleted_count: status === 'completed' ? found.ids.length : 0 },
        },
      };
    }
    if (call.path === '/v3/marketing/contacts/count' && call.method === 'GET')
      return { status: 200, body: { contact_count: state.contacts.size, billable_count: state.contacts.size } };
    return errors(404, 'resource not found');
  });
  return {
    ...server,
    state,
    addContact(email) {
      const contact: SendgridContact = {
        id: randomUUID(),
        email: email.toLowerCase(),
        first_name: 'Subject',
        created_at: new Date().toISOString(),
      };
      state.contacts.set(contact.id, contact);
      return contact;
    },
  };
}
