import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { canonicalJson } from './canonical-json';

const README = path.resolve(import.meta.dirname, '../../../../README.md');

/** The code blocks of the README's section on verifying a certificate, as written there. */
function recipe() {
  const text = fs.readFileSync(README, 'utf8');
  const start = text.indexOf('### Verifying a certificate without this service');
  const section = text.slice(start, text.indexOf('\n## ', start));
  const blocks = [...section.matchAll(/```(sh|js)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2]! }));
  expect(blocks.map((b) => b.lang)).toEqual(['sh', 'js', 'sh']);
  return { download: blocks[0]!.code, node: blocks[1]!.code, openssl: blocks[2]!.code };
}

let env: TestEnv;
let hooks: WebhookServer;
let server: Awaited<ReturnType<typeof startTestServer>>;
let dir: string;
let requestId: string;
let pat: string;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  hooks = await startWebhookServer();
  hooks.on('POST /erase', () => ({ status: 200, body: { ok: true } }));
  const org = await seedOrganization(env.deps, 'cert-recipe');
  pat = org.pat;
  const { caller } = callerFor(env.deps, { pat });
  // Names beyond ASCII: the canonical form must carry them as RFC 8785 does.
  const workspace = await caller.workspaces.create({ name: 'Équipe Zürich – 東京 😀' });
  await caller.integrations.create({
    workspaceId: workspace.id,
    name: 'Internal CRM',
    type: 'WEBHOOK',
    accountId: null,
    config: {
      mode: 'sync',
      initiate: { method: 'POST', url: `${hooks.url}/erase`, body: '{"email":"{{identifier}}"}' },
    },
  });
  const created = await caller.deletionRequests.createInWorkspace({
    workspaceId: workspace.id,
    identifier: 'recipe@example.org',
  });
  requestId = created.id;
  const worker = await startTestWorker(env);
  try {
    expect((await waitForRequest(env, requestId)).status).toBe('SUCCESS');
  } finally {
    await worker.stop();
  }
  server = await startTestServer(env.deps);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-recipe-'));
});
afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  await server?.close();
  await hooks?.close();
  await env?.close();
});

/** Runs a command in the recipe's folder; asynchronous, as the server answering it runs in this process. */
const run = (command: string, args: string[], extraEnv: Record<string, string> = {}) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...extraEnv } },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

describe("the README's recipe verifies a certificate without this service's code", () => {
  it('downloads the certificate and key, verifies them with node:crypto and with openssl, and rejects any change', async () => {
    const { download, node, openssl } = recipe();
    const fetched = await run('bash', ['-euc', download], {
      DDS_URL: server.baseUrl,
      DDS_PAT: pat,
      REQUEST_ID: requestId,
    });
    expect(fetched.status, fetched.stderr).toBe(0);
    fs.writeFileSync(path.join(dir, 'verify.mjs'), node);
    const verifyWithNode = () => run(process.execPath, ['verify.mjs', 'certificate.json', 'public-key.pem']);
    const verifyWithOpenssl = () => run('bash', ['-euc', openssl]);

    const genuine = await verifyWithNode();
    expect(genuine.status, genuine.stderr).toBe(0);
    expect(genuine.stdout).toBe('Signature verified\n');
    const genuineOpenssl = await verifyWithOpenssl();
    expect(genuineOpenssl.status, genuineOpenssl.stderr).toBe(0);
    expect(genuineOpenssl.stdout).toContain('Signature Verified Successfully');

    const original = fs.readFileSync(path.join(dir, 'certificate.json'), 'utf8');
    const document = JSON.parse(original);
    // Laid out otherwise (compact, members in another order), it is the same certificate.
    const { certificate, signature } = document;
    fs.writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify({ signature, certificate }));
    expect((await verifyWithNode()).status).toBe(0);
    expect((await verifyWithOpenssl()).status).toBe(0);

    // One value changed.
    const tampered = structuredClone(document);
    tampered.certificate.destinations[0].attempts += 1;
    fs.writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify(tampered, null, 2));
    const rejected = await verifyWithNode();
    expect(rejected.status).toBe(1);
    expect(rejected.stdout).toBe('Signature does NOT match\n');
    const rejectedOpenssl = await verifyWithOpenssl();
    expect(rejectedOpenssl.status).not.toBe(0);
    expect(rejectedOpenssl.stdout + rejectedOpenssl.stderr).toContain('Signature Verification Failure');

    // Signed again by someone else's key, which the file then carries: the published key refuses it.
    const forger = generateKeyPairSync('ed25519');
    const forged = {
      certificate: tampered.certificate,
      signature: {
        ...signature,
        publicKey: forger.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
        value: sign(null, Buffer.from(canonicalJson(tampered.certificate)), forger.privateKey).toString('base64'),
      },
    };
    fs.writeFileSync(path.join(dir, 'certificate.json'), JSON.stringify(forged));
    expect((await verifyWithNode()).status).toBe(1);
    expect((await verifyWithOpenssl()).status).not.toBe(0);
    fs.writeFileSync(path.join(dir, 'certificate.json'), original);
  });

  it('matches the JSON Schema published beside the OpenAPI document', async () => {
    const schemaResponse = await fetch(`${server.baseUrl}/api/certificate.schema.json`);
    expect(schemaResponse.status).toBe(200);
    expect(schemaResponse.headers.get('content-type')).toContain('application/schema+json');
    const schema = (await schemaResponse.json()) as Record<string, unknown>;
    expect(schema.description).toContain('RFC 8785');
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    (addFormats as unknown as (instance: Ajv2020) => void)(ajv);
    const validate = ajv.compile(schema);
    const download = await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.json`, {
      headers: { 'x-api-key': pat },
    });
    const document = await download.json();
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    const broken = structuredClone(document);
    broken.certificate.deletionRequest.subject = { identifier: 'recipe@example.org' };
    expect(validate(broken)).toBe(false);
    // The OpenAPI document describes the same download with the same schema.
    const openapi = await (await fetch(`${server.baseUrl}/api/openapi.json`)).json();
    expect(openapi.components.schemas.Certificate.description).toBe(schema.description);
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/downloads/certificates/{deletionRequestId}.json', '/downloads/requests.csv']),
    );
  });
});
