import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { PDFDocument, PDFName, PDFDict, PDFArray, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../generated/prisma/client';
import { applyRetention } from '../../pipeline/commands/apply-retention';
import { digestHex, sealAuditChain } from '../audit/audit-chain';
import { connectCustomerDatabase, createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { buildCertificate } from './build-certificate';
import { canonicalJson } from './canonical-json';
import { certificateJsonSchema } from './certificate-schema';
import { renderCertificatePdf } from './render-pdf';
import { publicKeyPem, signingKeyFor } from './signing-key';
import { verifyCertificate, type SignedCertificate } from './verify-certificate';
import { hashHex } from '../../lib/crypto';

let env: TestEnv;
let customer: CustomerDatabase;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let signed: SignedCertificate;
let requestId: string;
const identifier = 'cert.subject@example.com';

beforeAll(async () => {
  env = await createTestEnv();
  customer = await createCustomerDatabase();
  org = await seedOrganization(env.deps, 'certs');
  const caller = callerFor(env.deps, { pat: org.pat }).caller;
  await connectCustomerDatabase(caller, org.workspace.id, customer);
  await customer.seedUser(identifier, { orders: 2 });
  const created = await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
  requestId = created.id;
  const worker = await startTestWorker(env);
  try {
    expect((await waitForRequest(env, requestId)).status).toBe('SUCCESS');
  } finally {
    await worker.stop();
  }
  await sealAuditChain(env.deps.prisma);
  signed = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, requestId);
});
afterAll(async () => {
  await customer?.close();
  await env?.close();
});

describe('certificate of deletion', () => {
  it("lists each destination's evidence and the audit-chain head, and names the subject only by its keyed hash", async () => {
    const c = signed.certificate as any;
    expect(c.deletionRequest).toMatchObject({ id: requestId, status: 'SUCCESS', regulation: 'GDPR' });
    // GDPR asks for no separate confirmation of receipt: none was due, none recorded.
    expect(c.deletionRequest).toMatchObject({ receiptConfirmBy: null, receiptConfirmedAt: null });
    const stored = await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: requestId } });
    expect(c.deletionRequest.subject.identifierHash.value).toBe(hashHex(stored.identifierHmac));
    expect(c.deletionRequest.subject.identifierHash.value).toMatch(/^[0-9a-f]{64}$/);
    expect(c.destinations).toHaveLength(1);
    expect(c.destinations[0]).toMatchObject({
      name: 'App database',
      finalStatus: 'SUCCESS',
      evidence: {
        recorded: true,
        rowsChanged: { 'delete on public.orders': 2, 'delete on public.users': 1 },
        verification: { passed: true },
      },
    });
    const head = await env.deps.prisma.auditLog.findFirstOrThrow({
      where: { organizationId: org.organization.id, chainSeq: { not: null } },
      orderBy: { chainSeq: 'desc' },
    });
    expect(c.auditChain.head).toMatchObject({ chainSeq: head.chainSeq!.toString(), hash: digestHex(head.hash) });
    expect(JSON.stringify(signed)).not.toContain(identifier);
    // A store's evidence as the published JSON Schema describes it.
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    (addFormats as unknown as (instance: Ajv2020) => void)(ajv);
    const validate = ajv.compile(certificateJsonSchema);
    expect(validate(signed), JSON.stringify(validate.errors)).toBe(true);
  });

  it('verifies, and rejects any change, a foreign key, or a different published key', async () => {
    expect(verifyCertificate(signed)).toMatchObject({ valid: true, deletionRequestId: requestId });
    const key = await signingKeyFor(env.deps.prisma, env.deps.keyring, org.organization.id);
    expect(verifyCertificate(signed, publicKeyPem(key.publicKey))).toMatchObject({ valid: true });

    const tampered = structuredClone(signed) as any;
    tampered.certificate.destinations[0].finalStatus = 'SUCCESS ';
    expect(verifyCertificate(tampered)).toMatchObject({ valid: false, reason: expect.stringContaining('changed') });
    const reordered = JSON.parse(JSON.stringify({ signature: signed.signature, certificate: signed.certificate }));
    expect(verifyCertificate(reordered).valid).toBe(true);

    const other = await seedOrganization(env.deps, 'other-certs');
    const otherKey = await signingKeyFor(env.deps.prisma, env.deps.keyring, other.organization.id);
    expect(verifyCertificate(signed, publicKeyPem(otherKey.publicKey))).toMatchObject({ valid: false });
    // The private key is stored sealed, never in the clear.
    const row = await env.deps.prisma.organizationSigningKey.findFirstOrThrow({
      where: { organizationId: org.organization.id },
    });
    expect(row.privateKeyCipher.startsWith('v2:')).toBe(true);
  });

  it('`npm run cli -- certificate:verify` checks a file offline against the published key: 0, 2 once changed or forged, 3 without the key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-'));
    const file = path.join(dir, 'certificate.json');
    const keyFile = path.join(dir, 'public-key.pem');
    const key = await signingKeyFor(env.deps.prisma, env.deps.keyring, org.organization.id);
    fs.writeFileSync(keyFile, publicKeyPem(key.publicKey));
    fs.writeFileSync(file, JSON.stringify(signed, null, 2));
    const run = (...extra: string[]) =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', 'server/src/cli/index.ts', 'certificate:verify', file, '--json', ...extra],
        {
          encoding: 'utf8',
          // No database, no key: verification needs neither.
          env: { PATH: process.env.PATH ?? '' },
        },
      );
    const ok = run('--public-key', keyFile);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, keyChecked: true });
    // Without the published key only the signature is checked: not a pass.
    const unchecked = run();
    expect(unchecked.status).toBe(3);
    expect(JSON.parse(unchecked.stdout)).toMatchObject({ valid: true, keyChecked: false, warning: expect.any(String) });
    // A certificate someone signed with a key of their own, naming this organization.
    const forgerKeys = generateKeyPairSync('ed25519');
    const forged = {
      certificate: { ...signed.certificate, deletionRequest: { id: 'dr_forged', status: 'SUCCESS' } },
      signature: {
        ...signed.signature,
        publicKey: forgerKeys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
        value: sign(
          null,
          Buffer.from(
            canonicalJson({ ...signed.certificate, deletionRequest: { id: 'dr_forged', status: 'SUCCESS' } }),
          ),
          forgerKeys.privateKey,
        ).toString('base64'),
      },
    };
    fs.writeFileSync(file, JSON.stringify(forged));
    expect(run().status).toBe(3);
    const refused = run('--public-key', keyFile);
    expect(refused.status).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ valid: false });
    fs.writeFileSync(file, JSON.stringify(signed, null, 2).replace('"attempts": 1', '"attempts": 2'));
    const bad = run('--public-key', keyFile);
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ valid: false });
    fs.rmSync(dir, { recursive: true, force: true });
    // Five CLI processes, each loading the CLI through tsx: over 30 s on two busy cores.
  }, 120_000);

  it('is a certificate of deletion only for a request that succeeded and whose data was not found again', async () => {
    expect(signed.certificate).toMatchObject({ type: 'certificate-of-deletion' });
    expect(signed.certificate).not.toHaveProperty('dataReappeared');
    const irs = await env.deps.prisma.integrationRequest.findMany({ where: { deletionRequestId: requestId } });
    await env.deps.prisma.integrationRequest.update({ where: { id: irs[0]!.id }, data: { reappearedAt: new Date() } });
    try {
      const report = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, requestId);
      expect(report.certificate).toMatchObject({ type: 'deletion-report', dataReappeared: true });
      expect(verifyCertificate(report)).toMatchObject({ valid: true });
    } finally {
      await env.deps.prisma.integrationRequest.update({ where: { id: irs[0]!.id }, data: { reappearedAt: null } });
    }
    // A request that reached no destination finishes FAILED: a report, not a certificate.
    const caller = callerFor(env.deps, { pat: org.pat }).caller;
    const empty = await caller.workspaces.create({ name: 'No integrations' });
    const failed = await caller.deletionRequests.createInWorkspace({
      workspaceId: empty.id,
      identifier: 'nobody@example.com',
    });
    expect(failed.status).toBe('FAILED');
    const report = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, failed.id);
    expect(report.certificate).toMatchObject({ type: 'deletion-report' });
  });

  it('renders a PDF that carries the signed JSON as an attachment', async () => {
    const bytes = await renderCertificatePdf(signed);
    expect(Buffer.from(bytes.slice(0, 5)).toString()).toBe('%PDF-');
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getTitle()).toBe(`Certificate of deletion ${requestId}`);
    const names = pdf.catalog
      .lookup(PDFName.of('Names'), PDFDict)
      .lookup(PDFName.of('EmbeddedFiles'), PDFDict)
      .lookup(PDFName.of('Names'), PDFArray);
    const spec = names.lookup(1, PDFDict);
    const stream = spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')) as PDFRawStream;
    const attached = JSON.parse(Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8'));
    expect(verifyCertificate(attached)).toMatchObject({ valid: true, deletionRequestId: requestId });
  });

  it('downloads over HTTP with a token or a session only, as JSON and PDF', async () => {
    const server = await startTestServer(env.deps);
    try {
      const anonymous = await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.pdf`);
      expect(anonymous.status).toBe(401);
      const pdf = await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.pdf`, {
        headers: { 'x-api-key': org.pat },
      });
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="certificate-${requestId}.pdf"`);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      const json = await (
        await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.json`, {
          headers: { 'x-api-key': org.pat },
        })
      ).json();
      expect(verifyCertificate(json).valid).toBe(true);
      const other = await seedOrganization(env.deps, 'foreign-certs');
      expect(
        (
          await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.json`, {
            headers: { 'x-api-key': other.pat },
          })
        ).status,
      ).toBe(404);
      // A token limited to other scopes, or to another workspace, gets no certificate.
      const owner = callerFor(env.deps, { pat: org.pat }).caller;
      const elsewhere = await owner.workspaces.create({ name: 'Elsewhere' });
      for (const limits of [{ scopes: ['callbacks:manage' as const] }, { workspaceIds: [elsewhere.id] }]) {
        const limited = await owner.tokens.create({ name: 'limited', ...limits });
        const refused = await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.json`, {
          headers: { 'x-api-key': limited.token },
        });
        expect({ limits, status: refused.status }).toEqual({ limits, status: 403 });
      }
      const reader = await owner.tokens.create({ name: 'reader', scopes: ['requests:read'] });
      expect(
        (
          await fetch(`${server.baseUrl}/api/downloads/certificates/${requestId}.json`, {
            headers: { 'x-api-key': reader.token },
          })
        ).status,
      ).toBe(200);
      const pem = await fetch(`${server.baseUrl}/api/downloads/certificate-public-key.pem`, {
        headers: { 'x-api-key': org.pat },
      });
      expect(verifyCertificate(json, await pem.text()).valid).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('falls back to the audit payload for a destination that succeeded without stored evidence (an upgrade in progress)', async () => {
    const irs = await env.deps.prisma.integrationRequest.findMany({ where: { deletionRequestId: requestId } });
    const stored = irs[0]!.evidence;
    await env.deps.prisma.$executeRawUnsafe(
      `UPDATE "IntegrationRequest" SET evidence = NULL WHERE id = $1`,
      irs[0]!.id,
    );
    try {
      const again = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, requestId);
      expect((again.certificate as any).destinations[0].evidence).toMatchObject({
        recorded: true,
        rowsChanged: { 'delete on public.orders': 2, 'delete on public.users': 1 },
      });
    } finally {
      await env.deps.prisma.$executeRawUnsafe(
        `UPDATE "IntegrationRequest" SET evidence = $1::jsonb WHERE id = $2`,
        JSON.stringify(stored),
        irs[0]!.id,
      );
    }
  });

  it("keeps each destination's evidence after the retention policy deleted the identifier and the audit payloads", async () => {
    const subject = 'retained.subject@example.com';
    await customer.seedUser(subject, { orders: 3 });
    const caller = callerFor(env.deps, { pat: org.pat }).caller;
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: subject,
    });
    const worker = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, created.id)).status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
    await env.deps.prisma.organization.update({
      where: { id: org.organization.id },
      data: { retentionAction: 'DELETE', retentionDays: 0 },
    });
    try {
      expect((await applyRetention(env.deps.prisma, new Date(), org.organization.id)).deleted).toBeGreaterThan(0);
    } finally {
      await env.deps.prisma.organization.update({
        where: { id: org.organization.id },
        data: { retentionAction: 'NONE' },
      });
    }
    const payloads = await env.deps.prisma.auditLog.count({
      where: { deletionRequestId: created.id, details: { not: Prisma.AnyNull } },
    });
    expect(payloads).toBe(0);
    const report = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, created.id);
    expect((report.certificate as any).destinations[0].evidence).toEqual({
      recorded: true,
      rowsChanged: { 'delete on public.orders': 3, 'delete on public.users': 1 },
      verification: { remainingMatchingRows: expect.any(Object), passed: true },
    });
    expect(JSON.stringify(report)).not.toContain(subject);
    expect(verifyCertificate(report)).toMatchObject({ valid: true });
  });

  it('is refused while the request is still running', async () => {
    const caller = callerFor(env.deps, { pat: org.pat }).caller;
    const running = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'other@example.com',
    });
    await expect(buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, running.id)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });
});
