import { createHash } from 'node:crypto';
import { startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface MailchimpFakeState {
  apiKeys: Set<string>;
  listId: string;
  /** Members by subscriber hash. */
  members: Map<string, { id: string; email_address: string; status: string; list_id: string }>;
  /** Emails permanently deleted (Mailchimp refuses to re-import them). */
  erased: Set<string>;
  throttleNext: number;
}

const problem = (status: number, title: string, detail: string) => ({
  status,
  headers: { 'content-type': 'application/problem+json' },
  body: {
    type: 'https://mailchimp.com/developer/marketing/docs/errors/',
    title,
    status,
    detail,
    instance: '00000000-0000-4000-8000-000000000000',
  },
});

/**
 * Mailchimp Marketing API 3.0 list members: GET /3.0/lists/{list}/members/{hash},
 * POST /3.0/lists/{list}/members/{hash}/actions/delete-permanent (204), GET /3.0/lists/{list}.
 * HTTP Basic with any user name and the API key; errors are problem documents.
 */
export async function startMailchimpFake(): Promise<
  FakeVendor<MailchimpFakeState> & { addMember(email: string): string }
> {
  const state: MailchimpFakeState = {
    apiKeys: new Set(),
    listId: 'a1b2c3d4e5',
    members: new Map(),
    erased: new Set(),
    throttleNext: 0,
  };
  const server = await startFakeServer((call) => {
    const header = String(call.headers.authorization ?? '');
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
    const key = decoded.slice(decoded.indexOf(':') + 1);
    if (!state.apiKeys.has(key))
      return problem(
        401,
        'API Key Invalid',
        "Your API key may be invalid, or you've attempted to access the wrong datacenter.",
      );
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return problem(429, 'Too Many Requests', 'You have exceeded the limit of 10 simultaneous connections.');
    }
    const match = /^\/3\.0\/lists\/([^/]+)(?:\/members\/([0-9a-f]{32})(\/actions\/delete-permanent)?)?$/.exec(
      call.path,
    );
    if (!match || match[1] !== state.listId)
      return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    const [, listId, hash, action] = match;
    if (!hash && call.method === 'GET')
      return { status: 200, body: { id: listId, name: 'Newsletter', stats: { member_count: state.members.size } } };
    const member = hash ? state.members.get(hash) : undefined;
    if (hash && !action && call.method === 'GET')
      return member
        ? { status: 200, body: member }
        : problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    if (hash && action && call.method === 'POST') {
      if (!member) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
      state.members.delete(hash);
      state.erased.add(member.email_address);
      return { status: 204 };
    }
    return problem(405, 'Method Not Allowed', `${call.method} is not allowed here.`);
  });
  return {
    ...server,
    state,
    addMember(email) {
      const hash = createHash('md5').update(email.toLowerCase()).digest('hex');
      state.members.set(hash, { id: hash, email_address: email, status: 'subscribed', list_id: state.listId });
      return hash;
    },
  };
}
