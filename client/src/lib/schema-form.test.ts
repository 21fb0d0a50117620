import { accountSecretSchemas, integrationTypeInfo, webhookConfigSchema } from '@shared/integrations';
import { describe, expect, it } from 'vitest';
import { validateForm } from './form';
import { defaultsFor, fieldKind, formSchemaOf, getAt, labelFor, pruneEmpty, setAt, type JsonSchema } from './schema-form';

const webhook = formSchemaOf(webhookConfigSchema);
const props = (node: JsonSchema, ...path: string[]) => path.reduce((n, key) => n.properties![key]!, node);

describe('forms rendered from the integration schemas', () => {
  it('picks a widget per field of the webhook schema', () => {
    expect(fieldKind(props(webhook, 'mode'))).toBe('enum');
    expect(fieldKind(props(webhook, 'initiate'))).toBe('object');
    expect(fieldKind(props(webhook, 'initiate', 'url'))).toBe('string');
    expect(fieldKind(props(webhook, 'initiate', 'body'))).toBe('text');
    expect(fieldKind(props(webhook, 'initiate', 'headers'))).toBe('record');
    expect(fieldKind(props(webhook, 'status', 'successValues'))).toBe('string-list');
    expect(fieldKind(props(webhook, 'timeoutMs'))).toBe('number');
    expect(fieldKind(formSchemaOf(accountSecretSchemas.KEY_VALUE))).toBe('record');
    expect(fieldKind(props(formSchemaOf(integrationTypeInfo.POSTGRES!.configSchema), 'rules'))).toBe('object-list');
  });

  it('renders every registered type, including vendors added later, without a JSON fallback at the top level', () => {
    for (const info of Object.values(integrationTypeInfo)) {
      const schema = formSchemaOf(info!.configSchema);
      expect(fieldKind(schema), info!.type).toBe('object');
    }
  });

  it('starts from declared defaults; optional sections start unset', () => {
    const start = defaultsFor(webhook) as Record<string, unknown>;
    expect(start.mode).toBe('sync');
    expect(start.timeoutMs).toBe(15000);
    expect(start.initiate).toEqual({ method: 'POST', url: '', headers: {} });
    expect(start.status).toBeUndefined();
    // The port is left empty: its default depends on the database (5432 PostgreSQL, 3306 MySQL/MariaDB).
    expect(defaultsFor(formSchemaOf(accountSecretSchemas.DATABASE))).toEqual({ host: '', database: '', user: '', password: '', sslMode: 'require' });
  });

  it('drops empty optional values before validating with the server\'s schema, and keeps required ones for it to name', () => {
    const draft = { mode: 'sync', initiate: { method: 'POST', url: '', headers: {}, body: '', trackingIdPath: '' }, timeoutMs: undefined };
    const pruned = pruneEmpty(webhook, draft);
    expect(pruned).toEqual({ mode: 'sync', initiate: { method: 'POST', url: '', headers: {} } });
    const checked = validateForm(webhookConfigSchema, pruned);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(Object.keys(checked.errors)).toContain('initiate.url');
    const filled = setAt(pruned, ['initiate', 'url'], 'https://hooks.example.com/delete?email={{identifier}}');
    expect(validateForm(webhookConfigSchema, filled).ok).toBe(true);
  });

  it('reads and writes nested values without touching the original', () => {
    const original = { rules: [{ table: 'users' }] };
    const next = setAt(original, ['rules', 0, 'table'], 'orders');
    expect(getAt(next, ['rules', 0, 'table'])).toBe('orders');
    expect(original.rules[0]!.table).toBe('users');
    expect(setAt({ a: 1, b: 2 }, ['a'], undefined)).toEqual({ b: 2 });
  });

  it('labels keys for people', () => {
    expect(labelFor('trackingIdPath')).toBe('Tracking id path');
    expect(labelFor('baseUrl')).toBe('Base URL');
    expect(labelFor('timeoutMs')).toBe('Timeout (ms)');
    expect(labelFor('startHourUtc')).toBe('Start hour (UTC)');
  });
});
