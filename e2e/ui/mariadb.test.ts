import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, type MariaDbServer } from '../../server/src/test/stores/mariadb';
import { startRedis } from '../../server/src/test/stores/redis';
import { baseUrl, publicApi } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Mara Maria', email: `mara-${suffix}@example.com`, org: 'Shop on MariaDB' };
const subject = `jane-${suffix}@example.com`;

let browser: Browser;
let page: Page;
let mariadb: MariaDbServer;
let redis: Awaited<ReturnType<typeof startRedis>>;
let db: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
let workspaceApiKey = '';
let pat = '';

beforeAll(async () => {
  // The customer's MariaDB: a real server on a free port, with Debian's default case- and accent-insensitive collation.
  [mariadb, redis] = await Promise.all([startMariaDb(), startRedis()]);
  db = await mariadb.createDatabase(`
    CREATE TABLE users (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191) NOT NULL, phone VARCHAR(40), KEY (email)) ENGINE=InnoDB;
    CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, user_id INT NOT NULL, customer_email VARCHAR(191) NOT NULL, total INT NOT NULL,
      FOREIGN KEY (user_id) REFERENCES users(id)) ENGINE=InnoDB;
    INSERT INTO users (id, email, phone) VALUES (1, '${subject}', '+1 555 0100'), (2, '${subject.toUpperCase()}', NULL), (3, 'someone-else@example.com', NULL);
    INSERT INTO orders (user_id, customer_email, total) VALUES (1, '${subject}', 10), (1, '${subject}', 25), (2, '${subject.toUpperCase()}', 7);`);
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
}, 120_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-mariadb-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  await db?.close();
  await mariadb?.stop();
  await redis?.stop();
});

describe('an owner connects a MariaDB database and erases a subject from it', () => {
  it('signs up with a workspace and a personal access token', async () => {
    ({ workspaceApiKey, pat } = await signUpWithToken(page, owner, 'Shop'));
    expect(pat).toMatch(/^dds_pat_/);
  });

  it('creates the account, builds rules from the discovered schema and previews them with a dry run', async () => {
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'MySQL / MariaDB' });
    await page.getByLabel('Integration name').fill('Shop MariaDB');
    await page.getByLabel('Account name').fill('Shop MariaDB (primary)');
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(mariadb.port));
    await page.getByLabel('Database', { exact: true }).fill(db.name);
    await page.getByLabel('User', { exact: true }).fill(db.credentials.user);
    await page.getByLabel('Password', { exact: true }).fill(db.credentials.password);
    await page.getByLabel('SSL mode').selectOption('disable');
    await page.getByRole('button', { name: 'Save account' }).click();

    // Discovery: the tables of the account's database are offered.
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Table (rule 1)').selectOption(`${db.name}.users`);
    const rule1 = page.getByRole('region', { name: 'Rule 1' });
    await rule1.getByRole('checkbox', { name: /^email/ }).check();
    await page.getByLabel('Action (rule 1)').selectOption('delete');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect(page.getByLabel('Table (rule 2)').inputValue()).resolves.toBe(`${db.name}.orders`);
    const rule2 = page.getByRole('region', { name: 'Rule 2' });
    // The builder guessed user_id; the orders are found by the customer's e-mail.
    if (await rule2.getByRole('checkbox', { name: /^user_id/ }).isChecked())
      await rule2.getByRole('checkbox', { name: /^user_id/ }).uncheck();
    await rule2.getByRole('checkbox', { name: /^customer_email/ }).check();
    // Users before orders on purpose: MariaDB runs them children first, from the foreign keys.

    await page.getByLabel('Identifier to preview').fill(subject);
    await page.getByRole('button', { name: 'Preview' }).click();
    // Exactly the subject's rows: not the upper-case look-alike the collation calls equal.
    await expect(page.locator(`tr[data-dry-run-table="${db.name}.users"] td`).last().textContent()).resolves.toBe('1');
    await expect(page.locator(`tr[data-dry-run-table="${db.name}.orders"] td`).last().textContent()).resolves.toBe('2');
    expect(await db.count('SELECT COUNT(*) FROM orders')).toBe(3);
    await screenshot(page, '40-integration-mariadb-rules');

    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Shop MariaDB' }).waitFor();
  });

  it('runs a request through the public API to SUCCESS, and only the subject is gone', async () => {
    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: subject });
    expect(created.status).toBe(201);
    const id = String(created.body?.id);
    await nav(page, 'Requests').click();
    await page
      .locator(`tr[data-request-id="${id}"] .badge`, { hasText: 'Succeeded' })
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await db.count('SELECT COUNT(*) FROM users WHERE email = BINARY ?', [subject])).toBe(0);
    expect(await db.count('SELECT COUNT(*) FROM orders WHERE customer_email = BINARY ?', [subject])).toBe(0);
    expect(await db.count('SELECT COUNT(*) FROM users')).toBe(2);
    expect(await db.count('SELECT COUNT(*) FROM orders')).toBe(1);
    await page.locator(`tr[data-request-id="${id}"]`).getByRole('link').click();
    await expect(page.getByRole('article', { name: 'Shop MariaDB' }).getAttribute('data-status')).resolves.toBe(
      'SUCCESS',
    );
    await screenshot(page, '41-request-detail-mariadb');
  });

  it('Redis: rules are built kind by kind in the generated form; a request removes the keys and the set member', async () => {
    await redis.client.set(`session:${subject}:a`, '1');
    await redis.client.set(`session:${subject}:b`, '1');
    await redis.client.set('session:someone-else@example.com:a', '1');
    await redis.client.sAdd('newsletter', [subject, 'someone-else@example.com']);
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Redis' });
    await page.getByLabel('Integration name').fill('Session cache');
    await page.getByLabel('Account name').fill('Cache');
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(redis.credentials.port));
    await page.getByLabel(/^Password/).fill(redis.credentials.password);
    await page.getByRole('button', { name: 'Save account' }).click();

    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect(page.getByLabel('Pattern', { exact: true }).isVisible()).resolves.toBe(true);
    await page.getByLabel('Kind', { exact: true }).selectOption('set_member');
    await expect(page.getByLabel('Member', { exact: true }).isVisible()).resolves.toBe(true);
    expect(await page.getByLabel('Pattern', { exact: true }).count()).toBe(0);
    await page.getByLabel('Key', { exact: true }).fill('newsletter');
    await page.getByLabel('Member', { exact: true }).fill('{{identifier}}');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Pattern', { exact: true }).fill('session:{{identifier}}:*');
    await page.getByText('SCAN, never KEYS', { exact: false }).waitFor();
    await page.getByLabel('Identifier to preview').fill(subject);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(
      page.locator('tr[data-dry-run-table="session:{{identifier}}:*"] td').last().textContent(),
    ).resolves.toBe('2');
    await screenshot(page, '42-integration-redis-rules');
    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Session cache' }).waitFor();

    const created = await publicApi('POST', '/deletion-requests', pat, { workspaceApiKey, identifier: subject });
    expect(created.status).toBe(201);
    await nav(page, 'Requests').click();
    await page
      .locator(`tr[data-request-id="${String(created.body?.id)}"] .badge`, { hasText: 'Succeeded' })
      .first()
      .waitFor({ timeout: 30_000 });
    expect((await redis.client.keys('session:*')).sort()).toEqual(['session:someone-else@example.com:a']);
    expect(await redis.client.sMembers('newsletter')).toEqual(['someone-else@example.com']);
  });
});
