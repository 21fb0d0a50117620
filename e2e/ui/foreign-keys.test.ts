import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, type MariaDbServer } from '../../server/src/test/stores/mariadb';
import { baseUrl } from '../support/app';
import { launchBrowser, newPage, screenshot } from '../support/browser';
import { nav, signUpWithToken } from '../support/onboarding';

const suffix = randomBytes(3).toString('hex');
const owner = { name: 'Fran Keys', email: `fran-${suffix}@example.com`, org: 'Shop with keys' };
const subject = `jane-${suffix}@example.com`;

let browser: Browser;
let page: Page;
let mariadb: MariaDbServer;
let db: Awaited<ReturnType<MariaDbServer['createDatabase']>>;

beforeAll(async () => {
  mariadb = await startMariaDb();
  db = await mariadb.createDatabase(`
    CREATE TABLE users (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(191) NOT NULL, referred_by INT NULL, KEY (email),
      CONSTRAINT users_referrer FOREIGN KEY (referred_by) REFERENCES users(id)) ENGINE=InnoDB;
    CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, user_id INT NOT NULL,
      CONSTRAINT orders_user FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE RESTRICT) ENGINE=InnoDB;
    CREATE TABLE order_items (order_id INT NOT NULL, line INT NOT NULL, PRIMARY KEY (order_id, line),
      CONSTRAINT items_order FOREIGN KEY (order_id) REFERENCES orders(id)) ENGINE=InnoDB;
    CREATE TABLE sessions (id INT AUTO_INCREMENT PRIMARY KEY, user_id INT NOT NULL,
      CONSTRAINT sessions_user FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE) ENGINE=InnoDB;
    INSERT INTO users (id, email, referred_by) VALUES (1, '${subject}', NULL), (2, 'bob-${suffix}@example.com', 1), (3, '${subject.toUpperCase()}', NULL);
    INSERT INTO orders (id, user_id) VALUES (1, 1), (2, 3);
    INSERT INTO order_items (order_id, line) VALUES (1, 1), (1, 2), (2, 1);
    INSERT INTO sessions (user_id) VALUES (1), (3);`);
  browser = await launchBrowser();
  ({ page } = await newPage(browser, baseUrl()));
  page.on('console', (message) => message.type() === 'error' && console.error(`[browser] ${message.text()}`));
}, 120_000);
afterEach(async (context) => {
  if (context.task.result?.state === 'fail')
    await screenshot(page, `failed-foreign-keys-${context.task.name.replace(/\W+/g, '-')}`).catch(() => {});
});
afterAll(async () => {
  await browser?.close();
  await db?.close();
  await mariadb?.stop();
});

describe('the rule builder follows foreign keys', () => {
  it('signs up', async () => {
    await signUpWithToken(page, owner, 'Shop');
  });

  it('shows the tables that reference the chosen one, refuses a blocked rule at save, and adds the proposed rules', async () => {
    await nav(page, 'Integrations').click();
    await page.getByRole('link', { name: 'Connect integration' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'MySQL / MariaDB' });
    await page.getByLabel('Integration name').fill('Keyed MariaDB');
    await page.getByLabel('Account name').fill('Keyed MariaDB (primary)');
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(mariadb.port));
    await page.getByLabel('Database', { exact: true }).fill(db.name);
    await page.getByLabel('User', { exact: true }).fill(db.credentials.user);
    await page.getByLabel('Password', { exact: true }).fill(db.credentials.password);
    await page.getByLabel('SSL mode').selectOption('disable');
    await page.getByRole('button', { name: 'Save account' }).click();

    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByLabel('Table (rule 1)').selectOption(`${db.name}.users`);
    await page
      .getByRole('region', { name: 'Rule 1' })
      .getByRole('checkbox', { name: /^email/ })
      .check();
    await page.getByLabel('Action (rule 1)').selectOption('delete');

    const graph = page.getByRole('region', { name: `Tables referencing ${db.name}.users`, exact: true });
    await graph.getByText(`4 foreign keys lead to ${db.name}.users`).waitFor();
    await graph
      .getByText(`Path: ${db.name}.order_items → ${db.name}.orders → ${db.name}.users.`, { exact: false })
      .waitFor();
    expect(await graph.textContent()).toContain('ON DELETE CASCADE');
    await expect(
      graph
        .getByLabel(`Proposed handling of ${db.name}.users via users_referrer (rule 1)`, { exact: true })
        .inputValue(),
    ).resolves.toBe('set_null');

    // Saved alone, the rule is refused: the key that would block it is named.
    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page
      .getByText(new RegExp(`Foreign key orders_user \\(${db.name}\\.orders\\.user_id`))
      .first()
      .waitFor();

    await graph.getByRole('button', { name: 'Add 4 rules for the referencing tables', exact: true }).click();
    await page.getByRole('region', { name: 'Rule 5', exact: true }).waitFor();
    await expect(page.getByRole('region', { name: 'Rule 2', exact: true }).textContent()).resolves.toContain(
      `whose ${db.name}.users row has email = identifier`,
    );

    await page.getByLabel('Identifier to preview').fill(subject);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(page.locator(`tr[data-dry-run-table="${db.name}.order_items"] td`).last().textContent()).resolves.toBe(
      '2',
    );
    await expect(page.locator(`tr[data-dry-run-table="${db.name}.orders"] td`).last().textContent()).resolves.toBe('1');
    await screenshot(page, '45-integration-foreign-keys');

    await page.getByRole('button', { name: 'Connect integration' }).click();
    await page.getByRole('article', { name: 'Keyed MariaDB' }).waitFor();
    expect(await db.count('SELECT COUNT(*) FROM order_items')).toBe(3);
  });
});
