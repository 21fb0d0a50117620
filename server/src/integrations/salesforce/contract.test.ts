import jsforce from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SALESFORCE_API_VERSION, salesforceConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { salesforceDriver, soqlString } from './driver';
import { startSalesforceFake } from './fake';

// jsforce (the JavaScript Salesforce API library) against the same fake: its OAuth client
// credentials grant, its SOQL query and its record delete must be our requests, and it reads the answers.
let fake: Awaited<ReturnType<typeof startSalesforceFake>>;
const KEY = '3MVG9contract-consumer-key';
const SECRET = 'contract-consumer-secret';
beforeAll(async () => {
  fake = await startSalesforceFake();
  fake.state.clients.set(KEY, SECRET);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: KEY, secretKey: SECRET },
) =>
  driverContext(
    'SALESFORCE',
    salesforceConfigSchema.parse({ myDomain: 'acme.my.salesforce.com', baseUrl: fake.url, ...config }),
    secrets,
    { identifier },
  );

async function jsforceConnection() {
  const conn = new jsforce.Connection({
    oauth2: { loginUrl: fake.url, clientId: KEY, clientSecret: SECRET },
    version: SALESFORCE_API_VERSION,
  });
  return conn;
}

describe('Salesforce contract (jsforce)', () => {
  it("queries, deletes and queries again with jsforce's requests; jsforce reads the fake's answers", async () => {
    const contact = fake.addRecord('Contact', 'pat@example.com');
    const lead = fake.addRecord('Lead', 'PAT@example.com');
    const twin = fake.addRecord('Contact', 'pat@example.co');
    const ours = await callsDuring(fake, async () =>
      expect(await salesforceDriver.requestDeletion(ctx('pat@example.com'))).toMatchObject({
        kind: 'success',
        evidence: {
          recordsFound: 2,
          records: [
            { type: 'Contact', id: contact.Id },
            { type: 'Lead', id: lead.Id },
          ],
          verifiedGone: true,
        },
      }),
    );
    const base = `/services/data/v${SALESFORCE_API_VERSION}`;
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /services/oauth2/token',
      `GET ${base}/query`,
      `GET ${base}/query`,
      `DELETE ${base}/sobjects/Contact/${contact.Id}`,
      `DELETE ${base}/sobjects/Lead/${lead.Id}`,
      `GET ${base}/query`,
      `GET ${base}/query`,
    ]);
    expect(fake.state.records.has(twin.Id)).toBe(true);
    expect(fake.state.recycleBin.map((r) => r.Id)).toEqual([contact.Id, lead.Id]);

    const again = fake.addRecord('Contact', 'pat@example.com');
    const conn = await jsforceConnection();
    const [sdkToken] = await callsDuring(fake, () => conn.authorize({ grant_type: 'client_credentials' }));
    expect(conn.accessToken).toBeTruthy();
    const [sdkQuery] = await callsDuring(fake, async () => {
      const result = await conn.query(
        `SELECT Id, Email FROM Contact WHERE Email = '${soqlString('pat@example.com')}' LIMIT 201`,
      );
      expect(result).toMatchObject({ totalSize: 1, done: true, records: [{ Id: again.Id, Email: 'pat@example.com' }] });
    });
    const [sdkDelete] = await callsDuring(fake, async () =>
      expect(await conn.sobject('Contact').destroy(again.Id)).toMatchObject({ id: again.Id, success: true }),
    );
    // Our token request is jsforce's (form fields in any order); the Bearer tokens differ, so only the rest is compared.
    expectSameRequest(ours[0], sdkToken);
    const withoutAuth = (c: (typeof ours)[number]) => ({ ...c, headers: { ...c.headers, authorization: 'Bearer x' } });
    expectSameRequest(withoutAuth(ours[1]!), withoutAuth(sdkQuery!));
    expectSameRequest(
      withoutAuth({ ...ours[3]!, path: ours[3]!.path.replace(contact.Id, again.Id) }),
      withoutAuth(sdkDelete!),
    );
  });

  it("escapes the email per SOQL's quoted string escapes: a quote cannot widen the query", async () => {
    expect(soqlString("o'neil\\x\n@example.com")).toBe("o\\'neil\\\\x\\n@example.com");
    const quoted = fake.addRecord('Lead', "o'neil@example.com");
    const bystander = fake.addRecord('Lead', 'someone@example.com');
    expect(await salesforceDriver.requestDeletion(ctx("o'neil@example.com"))).toMatchObject({
      kind: 'success',
      evidence: { records: [{ type: 'Lead', id: quoted.Id }] },
    });
    expect(await salesforceDriver.requestDeletion(ctx("x' OR Email != 'x"))).toMatchObject({
      evidence: { recordsFound: 0 },
    });
    expect(fake.state.records.has(bystander.Id)).toBe(true);
  });

  it('REQUEST_LIMIT_EXCEEDED waits an hour without using an attempt; wrong client credentials fail at once', async () => {
    fake.addRecord('Contact', 'busy@example.com');
    fake.state.limitNext = 1;
    const now = new Date();
    expect(await salesforceDriver.requestDeletion({ ...ctx('busy@example.com'), now })).toEqual({
      kind: 'deferred',
      until: new Date(now.getTime() + 3_600_000),
      message: 'Salesforce API request limit reached (REQUEST_LIMIT_EXCEEDED); queued for 60 min',
    });
    await expect(
      salesforceDriver.requestDeletion(ctx('busy@example.com', {}, { apiKey: KEY, secretKey: 'wrong' })),
    ).rejects.toThrow('Salesforce refused the client credentials: HTTP 400: invalid client credentials');
    // jsforce reads the same refusal.
    const wrong = new jsforce.Connection({ oauth2: { loginUrl: fake.url, clientId: KEY, clientSecret: 'wrong' } });
    await expect(wrong.authorize({ grant_type: 'client_credentials' })).rejects.toMatchObject({
      name: 'invalid_client',
    });
    expect(await salesforceDriver.testConnection(ctx('x'))).toEqual({
      ok: true,
      message: 'Salesforce granted a token that may query records',
    });
  });

  it('only a My Domain is accepted', () => {
    expect(salesforceConfigSchema.safeParse({ myDomain: 'login.salesforce.com' }).success).toBe(false);
    expect(salesforceConfigSchema.parse({ myDomain: 'Acme.my.salesforce.com' })).toEqual({
      myDomain: 'acme.my.salesforce.com',
      objects: ['Contact', 'Lead'],
    });
  });
});
