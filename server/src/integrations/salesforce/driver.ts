import { createHash } from 'node:crypto';
import { SALESFORCE_API_VERSION, salesforceOrigin, type SalesforceConfig } from '@shared/integrations';
import { isSuccessStatus, type HttpClient, type HttpResponse } from '../runtime/http-client';
import { deletionFailure, str, testWith, vendorMessage, type VendorStyle } from '../saas';
import { PermanentError, TransientError, type Driver, type DriverContext, type Exchange, type Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Salesforce errors: REST `[{message, errorCode}]`; OAuth `{error, error_description}`. */
const style: VendorStyle = {
  vendor: 'Salesforce',
  message: (body) => {
    const first = (Array.isArray(body) ? body[0] : undefined) as { message?: unknown; errorCode?: unknown } | undefined;
    if (first) return [str(first.errorCode), str(first.message)].filter(Boolean).join(': ') || undefined;
    const oauth = body as { error?: unknown; error_description?: unknown } | undefined;
    return str(oauth?.error_description) ?? str(oauth?.error);
  },
};

/** The org's API request limit is a rolling 24 hours and Salesforce names no time: look again in an hour. */
const DAILY_LIMIT_WAIT_MS = 60 * 60 * 1000;
/** More records with one email than this fails rather than delete part of them. */
const MAX_RECORDS = 200;

/** SOQL string literal content: backslash escapes per "Quoted String Escape Sequences". */
export function soqlString(value: string): string {
  const named: Record<string, string> = { '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f' };
  return value.replace(/[\\'"\n\r\t\b\f]/g, (c) => `\\${named[c] ?? c}`);
}

const errorCode = (response: HttpResponse) =>
  Array.isArray(jsonBody(response)) ? (jsonBody(response) as { errorCode?: unknown }[])[0]?.errorCode : undefined;

/** A failed step: the org's API request limit waits (no attempt used); anything else as other vendors. */
function failure(response: HttpResponse, now: Date): Outcome {
  if (response.status === 403 && errorCode(response) === 'REQUEST_LIMIT_EXCEEDED')
    return {
      kind: 'deferred',
      until: new Date(now.getTime() + DAILY_LIMIT_WAIT_MS),
      message: `Salesforce API request limit reached (REQUEST_LIMIT_EXCEEDED); queued for ${DAILY_LIMIT_WAIT_MS / 60_000} min`,
    };
  return deletionFailure(style, response, now);
}

/** Access tokens by org and connected app, reused until Salesforce refuses one. */
const tokens = new Map<string, string>();

/** Salesforce REST API with a connected app's OAuth client credentials flow (on the org's My Domain). */
export function salesforceClient(
  http: HttpClient,
  config: SalesforceConfig,
  credentials: { clientId: string; clientSecret: string },
  trail?: Exchange[],
) {
  const origin = salesforceOrigin(config);
  const cacheKey = createHash('sha256')
    .update(`${origin}\n${credentials.clientId}\n${credentials.clientSecret}`)
    .digest('hex');

  async function token(): Promise<string> {
    const cached = tokens.get(cacheKey);
    if (cached) return cached;
    const response = await http.request({
      method: 'POST',
      url: `${origin}/services/oauth2/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      }).toString(),
    });
    // The granted access token is a credential: it stays out of the recorded trail.
    const recorded = trail?.findLast((e) => e.kind === 'http' && e.request.url.endsWith('/services/oauth2/token'));
    if (recorded?.kind === 'http' && recorded.response && isSuccessStatus(response.status))
      recorded.response.body = '[access token withheld]';
    if (response.status === 400 || response.status === 401 || response.status === 403)
      throw new PermanentError(`Salesforce refused the client credentials: ${vendorMessage(style, response)}`);
    if (!isSuccessStatus(response.status))
      throw new TransientError(`Salesforce token endpoint answered HTTP ${response.status}`);
    const accessToken = str((jsonBody(response) as { access_token?: unknown } | undefined)?.access_token);
    if (!accessToken) throw new TransientError('Salesforce granted no access_token');
    tokens.set(cacheKey, accessToken);
    return accessToken;
  }

  const api = async (method: string, path: string): Promise<HttpResponse> => {
    const headers = { authorization: `Bearer ${await token()}`, accept: 'application/json' };
    const response = await http.request({
      method,
      url: `${origin}/services/data/v${SALESFORCE_API_VERSION}${path}`,
      headers,
    });
    if (response.status === 401) tokens.delete(cacheKey);
    return response;
  };
  return {
    query: (soql: string) => api('GET', `/query?${new URLSearchParams({ q: soql })}`),
    destroy: (type: string, id: string) => api('DELETE', `/sobjects/${type}/${encodeURIComponent(id)}`),
  };
}

const clientFor = (
  ctx: Pick<DriverContext<SalesforceConfig>, 'http' | 'config' | 'secrets'> & { trail?: Exchange[] },
) =>
  salesforceClient(
    ctx.http,
    ctx.config,
    { clientId: credential(ctx, 'apiKey'), clientSecret: credential(ctx, 'secretKey') },
    ctx.trail,
  );

type Client = ReturnType<typeof salesforceClient>;
interface Found {
  type: string;
  id: string;
}

/** The records of each configured object whose email is the identifier, or why the query failed. */
async function findByEmail(
  client: Client,
  config: SalesforceConfig,
  email: string,
  now: Date,
): Promise<Found[] | Outcome> {
  const found: Found[] = [];
  for (const type of config.objects) {
    const response = await client.query(
      `SELECT Id, Email FROM ${type} WHERE Email = '${soqlString(email)}' LIMIT ${MAX_RECORDS + 1}`,
    );
    if (!isSuccessStatus(response.status)) return failure(response, now);
    const records = (
      (jsonBody(response) as { records?: { Id?: unknown; Email?: unknown }[] } | undefined)?.records ?? []
    )
      // SOQL compares emails ignoring case; only that, never a wider match, is deleted.
      .filter((r) => typeof r.Email === 'string' && r.Email.toLowerCase() === email.toLowerCase());
    if (records.length > MAX_RECORDS)
      return {
        kind: 'failed',
        reason: `Salesforce has more than ${MAX_RECORDS} ${type} records with the email; none was deleted`,
      };
    for (const r of records) {
      const id = str(r.Id);
      if (id) found.push({ type, id });
    }
  }
  return found;
}

async function deleteRecords(ctx: DriverContext<SalesforceConfig>): Promise<Outcome> {
  const client = clientFor(ctx);
  const found = await findByEmail(client, ctx.config, ctx.identifier, ctx.now);
  if (!Array.isArray(found)) return found;
  if (found.length === 0)
    return {
      kind: 'success',
      message: `Salesforce has no ${ctx.config.objects.join(' or ')} with the email: nothing to delete`,
      evidence: { recordsFound: 0 },
    };
  for (const record of found) {
    const response = await client.destroy(record.type, record.id);
    // Deleted meanwhile (another request, a person) is what was wanted.
    if (response.status === 404 && errorCode(response) === 'ENTITY_IS_DELETED') continue;
    if (!isSuccessStatus(response.status)) return failure(response, ctx.now);
  }
  const after = await findByEmail(client, ctx.config, ctx.identifier, ctx.now);
  if (!Array.isArray(after)) return after;
  if (after.length > 0)
    return {
      kind: 'retry',
      reason: `Salesforce still finds ${after.length} record(s) with the email after the delete`,
    };
  const counts = Object.fromEntries(ctx.config.objects.map((t) => [t, found.filter((r) => r.type === t).length]));
  return {
    kind: 'success',
    message: `Deleted ${found.length} Salesforce record(s) (${Object.entries(counts)
      .map(([t, n]) => `${n} ${t}`)
      .join(', ')}); a query by email now finds none`,
    evidence: {
      recordsFound: found.length,
      records: found,
      verifiedGone: true,
      lookupAfterDelete: 'SOQL query by email: 0 records',
    },
  };
}

/**
 * Synchronous: query each object (Contact, Lead) by email, delete each record through the REST
 * API, then query again: no record left is the proof. Deleted records go to the org's Recycle Bin.
 */
export const salesforceDriver: Driver<SalesforceConfig> = {
  type: 'SALESFORCE',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  requestDeletion: (ctx) => deleteRecords(ctx),

  // A query for an email no one has proves the credentials and read access, touching no one.
  testConnection: (ctx) =>
    testWith(
      style,
      () =>
        clientFor(ctx).query(
          `SELECT Id FROM ${ctx.config.objects[0]} WHERE Email = 'connection-test@example.invalid' LIMIT 1`,
        ),
      'Salesforce granted a token that may query records',
    ),
};
