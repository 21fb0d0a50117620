import { randomBytes } from 'node:crypto';
import { SALESFORCE_API_VERSION } from '@shared/integrations';
import { bearerOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface SalesforceRecord {
  Id: string;
  type: 'Contact' | 'Lead' | 'Individual';
  Email: string | null;
  IndividualId: string | null;
}

export interface SalesforceFakeState {
  /** Connected apps: consumer key -> consumer secret. */
  clients: Map<string, string>;
  tokens: Set<string>;
  records: Map<string, SalesforceRecord>;
  /** Deleted records (Salesforce keeps them in the Recycle Bin). */
  recycleBin: SalesforceRecord[];
  /** The next N API calls answer 403 REQUEST_LIMIT_EXCEEDED. */
  limitNext: number;
}

const PREFIX = { Contact: '003', Lead: '00Q', Individual: '0PK' } as const;

/** SOQL string literal: the escapes of "Quoted String Escape Sequences" undone. */
const unescapeSoql = (value: string) =>
  value.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' })[c] ?? c);

const errors = (status: number, errorCode: string, message: string) => ({ status, body: [{ message, errorCode }] });

/**
 * Salesforce: POST /services/oauth2/token (client_credentials, form-encoded) → {access_token,
 * instance_url, token_type}; REST under /services/data/v{version} with Bearer: GET /query?q= answers
 * `SELECT … FROM Contact|Lead WHERE Email = '…'` (SOQL escapes, any case) with {totalSize, done,
 * records}; DELETE /sobjects/{type}/{id} → 204 (the record moves to the Recycle Bin), 404
 * ENTITY_IS_DELETED / NOT_FOUND otherwise.
 */
export async function startSalesforceFake(): Promise<
  FakeVendor<SalesforceFakeState> & {
    addRecord(type: SalesforceRecord['type'], email: string | null, individualId?: string | null): SalesforceRecord;
  }
> {
  const state: SalesforceFakeState = {
    clients: new Map(),
    tokens: new Set(),
    records: new Map(),
    recycleBin: [],
    limitNext: 0,
  };
  const addRecord = (type: SalesforceRecord['type'], email: string | null, individualId: string | null = null) => {
    const record = {
      Id: `${PREFIX[type]}${randomBytes(6).toString('hex')}AAA`,
      type,
      Email: email,
      IndividualId: individualId,
    };
    state.records.set(record.Id, record);
    return record;
  };
  let url = '';
  const base = `/services/data/v${SALESFORCE_API_VERSION}`;
  const server = await startFakeServer((call) => {
    if (call.method === 'POST' && call.path === '/services/oauth2/token') {
      const form = new URLSearchParams(call.body);
      if (form.get('grant_type') !== 'client_credentials')
        return {
          status: 400,
          body: { error: 'unsupported_grant_type', error_description: 'grant type not supported' },
        };
      const secret = state.clients.get(form.get('client_id') ?? '');
      if (!secret || secret !== form.get('client_secret'))
        return { status: 400, body: { error: 'invalid_client', error_description: 'invalid client credentials' } };
      const token = `00D${randomBytes(12).toString('hex')}`;
      state.tokens.add(token);
      return {
        status: 200,
        body: {
          access_token: token,
          instance_url: url,
          id: `${url}/id/00Dxx0000000001AAA/005xx0000000001AAA`,
          token_type: 'Bearer',
          issued_at: String(call.at),
          signature: randomBytes(16).toString('base64'),
        },
      };
    }
    if (!call.path.startsWith(`${base}/`)) return errors(404, 'NOT_FOUND', 'The requested resource does not exist');
    const token = bearerOf(call);
    if (!token || !state.tokens.has(token)) return errors(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
    if (state.limitNext > 0) {
      state.limitNext--;
      return errors(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
    }
    const path = call.path.slice(base.length);
    if (call.method === 'GET' && (path === '/query' || path === '/query/')) {
      const soql = call.query.get('q') ?? '';
      const match =
        /^SELECT\s+([\w\s,]+?)\s+FROM\s+(Contact|Lead)\s+WHERE\s+Email\s*=\s*'((?:[^'\\]|\\.)*)'(?:\s+LIMIT\s+(\d+))?$/i.exec(
          soql.trim(),
        );
      if (!match)
        return errors(400, 'MALFORMED_QUERY', 'The fake answers only SELECT … FROM Contact|Lead WHERE Email = …');
      const fields = match[1]!.split(',').map((f) => f.trim());
      const email = unescapeSoql(match[3]!).toLowerCase();
      const limit = match[4] ? Number(match[4]) : Infinity;
      const all = [...state.records.values()].filter((r) => r.type === match[2] && r.Email?.toLowerCase() === email);
      const records = all.slice(0, limit).map((r) => ({
        attributes: { type: r.type, url: `${base}/sobjects/${r.type}/${r.Id}` },
        ...Object.fromEntries(fields.map((f) => [f, r[f as keyof SalesforceRecord] ?? null])),
      }));
      return { status: 200, body: { totalSize: Math.min(all.length, limit), done: true, records } };
    }
    const sobject = /^\/sobjects\/(Contact|Lead|Individual)\/(\w+)$/.exec(path);
    if (call.method === 'DELETE' && sobject) {
      const record = state.records.get(sobject[2]!);
      if (!record || record.type !== sobject[1]) {
        const deleted = state.recycleBin.some((r) => r.Id === sobject[2]);
        return deleted
          ? errors(404, 'ENTITY_IS_DELETED', 'entity is deleted')
          : errors(404, 'NOT_FOUND', 'The requested resource does not exist');
      }
      state.records.delete(record.Id);
      state.recycleBin.push(record);
      return { status: 204 };
    }
    return errors(404, 'NOT_FOUND', 'The requested resource does not exist');
  });
  url = server.url;
  return { ...server, state, addRecord };
}
