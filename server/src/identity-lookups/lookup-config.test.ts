import { describe, expect, it } from 'vitest';
import {
  LookupConfigError,
  LookupError,
  runIdentityLookup,
  validateLookupConfig,
  type IdentityLookupConfig,
} from './run-lookup';

const TYPES = ['email', 'phone', 'user_id', 'stripe_customer_id', 'anonymous_id'];

const sql = (
  query: string,
  extra: Partial<Extract<IdentityLookupConfig, { kind: 'sql' }>> = {},
): IdentityLookupConfig => ({
  kind: 'sql',
  dialect: 'postgres',
  query,
  columns: { id: 'user_id' },
  timeoutMs: 2_000,
  maxRows: 5,
  ...extra,
});

function refusal(config: IdentityLookupConfig): LookupConfigError {
  try {
    validateLookupConfig(config, TYPES);
  } catch (error) {
    expect(error).toBeInstanceOf(LookupConfigError);
    return error as LookupConfigError;
  }
  throw new Error('the configuration was accepted');
}

describe('validateLookupConfig', () => {
  it('accepts one SELECT with placeholders of known types, on either dialect', () => {
    expect(() =>
      validateLookupConfig(
        sql(
          `SELECT u.id, c.stripe_id FROM users u LEFT JOIN customers c ON c.user_id = u.id WHERE u.email = {{email}};`,
        ),
        TYPES,
      ),
    ).not.toThrow();
    expect(() =>
      validateLookupConfig(
        sql('select `id` from users where email = {{ email }} or phone = {{phone}}', { dialect: 'mysql' }),
        TYPES,
      ),
    ).not.toThrow();
    // Words that only look forbidden: inside quotes, or part of a longer name.
    expect(() =>
      validateLookupConfig(
        sql(`SELECT id FROM users WHERE email = {{email}} AND note <> 'delete me; drop' AND "update" = updated_at`),
        TYPES,
      ),
    ).not.toThrow();
  });

  it.each([
    ['DELETE FROM users WHERE email = {{email}}', /single SELECT/],
    ['SELECT id FROM users WHERE email = {{email}}; DELETE FROM users', /one statement/],
    ['SELECT id FROM users WHERE email = {{email}};;', /one statement/],
    ['WITH gone AS (DELETE FROM users RETURNING id) SELECT id FROM gone WHERE {{email}} IS NOT NULL', /single SELECT/],
    ['SELECT id INTO stolen FROM users WHERE email = {{email}}', /INTO is not accepted/],
    ['SELECT id FROM users WHERE email = {{email}} FOR UPDATE', /UPDATE is not accepted/],
    ['SELECT id FROM users WHERE email = {{email}} FOR SHARE', /SHARE is not accepted/],
    [
      "SELECT set_config('default_transaction_read_only', 'off', false), id FROM users WHERE email = {{email}}",
      /set_config/,
    ],
    ["SELECT nextval('users_id_seq') AS id FROM users WHERE email = {{email}}", /nextval/],
    ['SELECT "pg_catalog"."pg_terminate_backend"(1) AS id WHERE {{email}} IS NULL', /pg_terminate_backend/],
    ["SELECT pg_file_write('/tmp/x', 'y', false) AS id WHERE {{email}} IS NULL", /pg_file_write/],
    ['SELECT id FROM users WHERE email = {{email}} -- AND deleted', /Comments/],
    ['SELECT id FROM users WHERE email = {{email}} /* x */', /Comments/],
    ['SELECT $$x$$ AS id WHERE {{email}} IS NULL', /\$ is not accepted/],
    ["SELECT id FROM users WHERE email = '{{email}}'", /outside quotes/],
    ['SELECT id FROM users WHERE email = {{email', /not closed/],
    ['SELECT id FROM users WHERE email = {{e mail}}', /must name an identifier type/],
    ['SELECT id FROM users WHERE email = {{shoe_size}}', /\{\{shoe_size\}\} names no identifier type/],
    ['SELECT id FROM users', /at least one placeholder/],
    ["SELECT id FROM users WHERE email = {{email}} AND name = 'O''Brien", /unterminated quote/],
  ])('refuses %s on PostgreSQL', (query, message) => {
    const error = refusal(sql(query));
    expect(error.field).toBe('query');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['SELECT id FROM users WHERE email = {{email}} # AND deleted', /Comments/],
    ['/*!50000 DELETE FROM users */ SELECT id FROM users WHERE email = {{email}}', /Comments/],
    ['SELECT id FROM users WHERE email = {{email}} LOCK IN SHARE MODE', /LOCK is not accepted/],
    ["SELECT id FROM users WHERE email = {{email}} INTO OUTFILE '/tmp/x'", /INTO is not accepted/],
    ['SELECT @n := id AS id FROM users WHERE email = {{email}}', /@ is not accepted/],
    ['SELECT id FROM users WHERE email = ? OR email = {{email}}', /\? is not accepted/],
    ["SELECT id FROM users WHERE email = {{email}} AND name = 'x\\' OR 1=1 -- '", /\\ is not accepted/],
    // MySQL reads 'a\'' as the string a' and runs INTO OUTFILE; a reader without backslash escapes would see it quoted.
    ["SELECT id FROM users WHERE email = {{email}} AND name = 'a\\'' INTO OUTFILE '/tmp/x' -- '", /\\ is not accepted/],
    ["SELECT load_file('/etc/passwd') AS id WHERE {{email}} IS NULL", /load_file/],
    ["SELECT GET_LOCK('x', 10) AS id WHERE {{email}} IS NULL", /get_lock/],
  ])('refuses %s on MySQL', (query, message) => {
    expect(refusal(sql(query, { dialect: 'mysql' })).message).toMatch(message);
  });

  it('refuses a mapping without columns, or to a type the organization does not have', () => {
    expect(refusal(sql('SELECT id FROM users WHERE email = {{email}}', { columns: {} })).field).toBe('columns');
    const unknown = refusal(sql('SELECT id FROM users WHERE email = {{email}}', { columns: { id: 'shoe_size' } }));
    expect(unknown.field).toBe('columns.id');
    expect(unknown.message).toMatch(/shoe_size, which is no identifier type/);
  });

  it('refuses timeouts and caps out of bounds, naming the field', () => {
    expect(refusal(sql('SELECT id FROM users WHERE email = {{email}}', { timeoutMs: 10 })).field).toBe('timeoutMs');
    expect(refusal(sql('SELECT id FROM users WHERE email = {{email}}', { maxRows: 0 })).field).toBe('maxRows');
    expect(refusal(sql('SELECT id FROM users WHERE email = {{email}}', { maxRows: 101 })).field).toBe('maxRows');
    const webhook = {
      kind: 'webhook',
      url: 'https://lookup.example.com/ids',
      timeoutMs: 5_000,
      maxIdentifiers: 10,
    } as const;
    expect(() => validateLookupConfig(webhook, TYPES)).not.toThrow();
    expect(refusal({ ...webhook, maxIdentifiers: 51 }).field).toBe('maxIdentifiers');
    expect(refusal({ ...webhook, url: 'ftp://lookup.example.com/ids' }).field).toBe('url');
    expect(refusal({ ...webhook, url: 'https://user:pw@lookup.example.com/ids' }).message).toMatch(/Credentials/);
  });

  it('is checked again when a lookup runs: a stored configuration out of shape runs nothing', async () => {
    const tampered = { ...sql('SELECT id FROM users WHERE email = {{email}}'), maxRows: '1 UNION SELECT 1' as never };
    const known = [{ type: 'email', value: 'jane@example.com' }];
    const run = runIdentityLookup(tampered, known, {});
    await expect(run).rejects.toBeInstanceOf(LookupError);
    await expect(run).rejects.toThrow("The lookup's configuration is not valid (maxRows)");
    const writes = sql('SELECT id FROM users WHERE email = {{email}}; DELETE FROM users');
    const refused = runIdentityLookup(writes, known, {});
    await expect(refused).rejects.toBeInstanceOf(LookupError);
    await expect(refused).rejects.toThrow(/one statement/);
  });
});
