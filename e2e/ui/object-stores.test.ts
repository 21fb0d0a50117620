import { randomBytes } from 'node:crypto';
import { DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, tableWithEmailIndex } from '../../server/src/test/stores/dynalite';
import { startS3rver } from '../../server/src/test/stores/s3rver';
import { baseUrl, publicApi } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Otto Objects', email: `otto-${suffix}@example.com`, org: 'Shop on AWS' };
const subject = `kim-${suffix}@example.com`;

let browser: Browser;
let page: Page;
let s3: Awaited<ReturnType<typeof startS3rver>>;
let dynamo: Awaited<ReturnType<typeof startDynalite>>;
let s3Client: S3Client;
let dynamoClient: DynamoDBClient;
let workspaceApiKey = '';
let pat = '';

beforeAll(async () => {
  // The customer's stores: an S3-compatible server with two buckets, and a DynamoDB emulator.
  [s3, dynamo] = await Promise.all([startS3rver(['exports', 'avatars']), startDynalite()]);
  s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: s3.credentials,
    forcePathStyle: true,
  });
  dynamoClient = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: dynamo.credentials,
  });
  for (const Key of [`u/${subject}/a.json`, `u/${subject}/b.json`, 'u/someone-else@example.com/a.json'])
    await s3Client.send(new PutObjectCommand({ Bucket: 'exports', Key, Body: '{}' }));
  await dynamoClient.send(tableWithEmailIndex('sessions', 'sessionId'));
  for (const [sessionId, email] of [
    ['s1', subject],
    ['s2', subject],
    ['s3', 'someone-else@example.com'],
  ])
    await dynamoClient.send(
      new PutItemCommand({ TableName: 'sessions', Item: { sessionId: { S: sessionId! }, email: { S: email! } } }),
    );
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
}, 120_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-object-stores-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  s3Client?.destroy();
  dynamoClient?.destroy();
  await Promise.all([s3?.stop(), dynamo?.stop()]);
});

/** The values the browser offers under a text field (its datalist), as a user sees them when typing. */
async function offered(label: string): Promise<string[]> {
  const field = page.getByLabel(label, { exact: true });
  const list = await field.getAttribute('list');
  if (!list) return [];
  return page
    .locator(`datalist[id="${list}"] option`)
    .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
}

/** Creates an AWS account inline in the integration form. */
async function fillAwsAccount(
  name: string,
  credentials: { accessKeyId: string; secretAccessKey: string; endpoint: string },
) {
  await page.getByLabel('Account name').fill(name);
  await page.getByLabel('Access key id', { exact: true }).fill(credentials.accessKeyId);
  await page.getByLabel('Secret access key', { exact: true }).fill(credentials.secretAccessKey);
  await page.getByLabel(/^Endpoint/).fill(credentials.endpoint);
  await page.getByRole('button', { name: 'Save account' }).click();
}

/** Runs a request for the subject through the public API and waits for its row to say Succeeded. */
async function runToSuccess() {
  const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: subject });
  expect(created.status).toBe(201);
  const id = String(created.body?.id);
  await nav(page, 'Requests').click();
  await page
    .locator(`tr[data-request-id="${id}"] .badge`, { hasText: 'Succeeded' })
    .first()
    .waitFor({ timeout: 30_000 });
  return id;
}

describe('an owner connects S3 and DynamoDB, choosing what discovery found', () => {
  it('signs up with a workspace and a personal access token', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop'));
    expect(pat).toMatch(/^dds_pat_/);
  });

  it('S3: the bucket field offers the buckets the account can list; a dry run lists the objects; a request erases them', async () => {
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Amazon S3' });
    await page.getByLabel('Integration name').fill('Exports bucket');
    await fillAwsAccount('Shop AWS (S3)', s3.credentials);
    await expect.poll(() => offered('Bucket')).toEqual(['avatars', 'exports']);
    await page.getByLabel('Bucket', { exact: true }).fill('exports');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Prefix', { exact: true }).fill('u/{{identifier}}/');
    await page.getByLabel('Identifier to preview').fill(subject);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(page.locator('tr[data-dry-run-table="exports"] td').last().textContent()).resolves.toBe('2');
    await screenshot(page, '43-integration-s3-rules');
    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Exports bucket' }).waitFor();

    await runToSuccess();
    const left = (await s3Client.send(new ListObjectsV2Command({ Bucket: 'exports' }))).Contents?.map((o) => o.Key);
    expect(left).toEqual(['u/someone-else@example.com/a.json']);
  });

  it('DynamoDB: table and index fields offer the discovered tables and indexes; a request deletes the items', async () => {
    // The S3 integration is done with the subject: only DynamoDB is new here.
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Amazon DynamoDB' });
    await page.getByLabel('Integration name').fill('Sessions table');
    await fillAwsAccount('Shop AWS (DynamoDB)', dynamo.credentials);
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Kind', { exact: true }).selectOption('index');
    await expect.poll(() => offered('Table')).toEqual(['sessions']);
    await expect.poll(() => offered('Index')).toEqual(['by-email']);
    await page.getByLabel('Table', { exact: true }).fill('sessions');
    await page.getByLabel('Index', { exact: true }).fill('by-email');
    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Sessions table' }).waitFor();

    await runToSuccess();
    const items = (await dynamoClient.send(new ScanCommand({ TableName: 'sessions' }))).Items ?? [];
    expect(items.map((i) => i.sessionId!.S)).toEqual(['s3']);
  });
});
