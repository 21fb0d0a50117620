import { accountSecretSchemas, integrationTypeInfo, webhookConfigSchema } from '@shared/integrations';
import { describe, expect, it } from 'vitest';
import { validateForm } from './form';
import {
  defaultsFor,
  fieldKind,
  formSchemaOf,
  getAt,
  labelFor,
  pruneEmpty,
  setAt,
  unionOf,
  variantOf,
  type JsonSchema,
} from './schema-form';

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
    // GA4's property id is text or a number: typed as text, so `properties/123` can be pasted.
    const ga4 = formSchemaOf(integrationTypeInfo.GOOGLE_ANALYTICS!.configSchema);
    expect(fieldKind(props(ga4, 'propertyId'))).toBe('string');
    expect(validateForm(integrationTypeInfo.GOOGLE_ANALYTICS!.configSchema, { propertyId: 'properties/123' }).ok).toBe(
      true,
    );
    expect(labelFor('tls')).toBe('TLS');
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
    expect(defaultsFor(formSchemaOf(accountSecretSchemas.DATABASE))).toEqual({
      host: '',
      database: '',
      user: '',
      password: '',
      sslMode: 'require',
    });
  });

  it("drops empty optional values before validating with the server's schema, and keeps required ones for it to name", () => {
    const draft = {
      mode: 'sync',
      initiate: { method: 'POST', url: '', headers: {}, body: '', trackingIdPath: '' },
      timeoutMs: undefined,
    };
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

describe('discriminated unions (data store rules)', () => {
  const redis = formSchemaOf(integrationTypeInfo.REDIS.configSchema);
  const rules = props(redis, 'rules');

  it('edits a list of rules of several kinds: the kind first, then its own fields', () => {
    expect(fieldKind(rules)).toBe('object-list');
    const union = unionOf(rules.items!)!;
    expect(fieldKind(rules.items!)).toBe('union');
    expect(union.key).toBe('kind');
    expect(union.variants.map((v) => v.value)).toEqual(['keys', 'hash_field', 'set_member']);
    expect(variantOf(union, { kind: 'set_member' }).value).toBe('set_member');
    expect(variantOf(union, undefined).value).toBe('keys');
    for (const type of ['S3', 'DYNAMODB'] as const)
      expect(fieldKind(props(formSchemaOf(integrationTypeInfo[type].configSchema), 'rules').items!)).toBe('union');
  });

  it('a new rule starts as the first kind with its fields empty; values are pruned by their own kind', () => {
    expect(defaultsFor(rules.items!)).toEqual({ kind: 'keys', pattern: '' });
    const draft = { rules: [{ kind: 'hash_field', key: 'emails', field: '{{identifier}}' }], maxKeys: 10 };
    expect(pruneEmpty(redis, draft)).toEqual(draft);
    expect(validateForm(integrationTypeInfo.REDIS.configSchema, pruneEmpty(redis, draft))).toMatchObject({ ok: true });
    expect(
      validateForm(integrationTypeInfo.REDIS.configSchema, { rules: [{ kind: 'keys', pattern: 'user:*' }] }),
    ).toMatchObject({
      ok: false,
      errors: { 'rules.0.pattern': expect.stringContaining('{{identifier}}') },
    });
  });
});
