import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ConfigSchema } from '@shared/integrations/object-stores';
import { assertHostAllowed, policyFromConfig } from '../../lib/ssrf';
import { startS3rver } from '../../test/stores/s3rver';
import { startVersionedS3 } from '../../test/stores/s3-versioned';
import { PermanentError, type Exchange } from '../types';
import { closeS3Clients, s3DeleteAndVerify, s3DryRun, s3ListBuckets, s3TestConnection } from './execute';

let s3: Awaited<ReturnType<typeof startS3rver>>;
let client: S3Client;
const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' });
const resolveHost = async (host: string) => (await assertHostAllowed(host, policy)).address;
const BUCKET = 'bucket-one';

beforeAll(async () => {
  s3 = await startS3rver([BUCKET, 'bucket-two']);
  client = new S3Client({ ...s3, region: 'us-east-1', credentials: s3.credentials, forcePathStyle: true });
});
afterAll(async () => {
  client?.destroy();
  await closeS3Clients();
  await s3?.stop();
});

const put = (Key: string) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'data' }));
const exists = (Key: string) =>
  client.send(new GetObjectCommand({ Bucket: BUCKET, Key })).then(
    () => true,
    () => false,
  );
const ctxFor = (rules: unknown[], identifier: string, extra: object = {}) => ({
  secrets: s3.credentials as Record<string, unknown>,
  resolveHost,
  config: s3ConfigSchema.parse({ bucket: BUCKET, rules, ...extra }),
  identifier,
  trail: [] as Exchange[],
});

describe('S3 through the official AWS SDK v3 against s3rver', () => {
  it('lists buckets as discovery and connects through the SSRF guard', async () => {
    expect(await s3ListBuckets({ secrets: s3.credentials, resolveHost })).toEqual(['bucket-one', 'bucket-two']);
    const strict = policyFromConfig({});
    expect(
      await s3TestConnection({
        secrets: s3.credentials,
        resolveHost: async (h) => (await assertHostAllowed(h, strict)).address,
      }),
    ).toMatchObject({
      ok: false,
      message: expect.stringContaining('loopback'),
    });
    // s3rver knows its access key ids (it does not check V4 signatures themselves).
    expect(
      await s3TestConnection({ secrets: { ...s3.credentials, accessKeyId: 'UNKNOWN' }, resolveHost }),
    ).toMatchObject({ ok: false, message: expect.stringContaining('InvalidAccessKeyId') });
  });

  it('dry run lists what each rule reaches; deletion erases exactly that and verifies', async () => {
    const id = 'jane@example.com';
    await Promise.all(Array.from({ length: 40 }, (_, i) => put(`exports/${id}/part-${i}.csv`)));
    await put(`avatars/${id}.png`);
    for (const other of [
      'exports/jane@example.community/a.csv',
      'exports/Jane@example.com/a.csv',
      `exports/x${id}/a.csv`,
      `avatars/${id}.png.bak`,
    ])
      await put(other);
    const rules = [
      { kind: 'prefix', prefix: 'exports/{{identifier}}/' },
      { kind: 'key', key: 'avatars/{{identifier}}.png' },
    ];
    const dry = await s3DryRun(ctxFor(rules, id, { maxObjects: 5000 }));
    expect(dry.map((r) => r.rows)).toEqual([40, 1]);
    expect(dry[1]!.sample).toEqual([`avatars/${id}.png`]);
    expect(await exists(`exports/${id}/part-3.csv`)).toBe(true);

    const ctx = ctxFor(rules, id, { maxObjects: 5000 });
    const outcome = await s3DeleteAndVerify(ctx);
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: { changed: { 'objects under exports/{{identifier}}/': 40, 'object avatars/{{identifier}}.png': 1 } },
    });
    expect(await exists(`exports/${id}/part-3.csv`)).toBe(false);
    expect(await exists(`avatars/${id}.png`)).toBe(false);
    for (const other of [
      'exports/jane@example.community/a.csv',
      'exports/Jane@example.com/a.csv',
      `exports/x${id}/a.csv`,
      `avatars/${id}.png.bak`,
    ])
      expect(await exists(other)).toBe(true);
    expect(ctx.trail.filter((s) => s.kind === 'sql' && s.statement.startsWith('DeleteObjects'))).toHaveLength(2); // one per rule (up to 1,000 objects each)
    expect(JSON.stringify(ctx.trail)).not.toContain('jane@');
  });

  it('above the limit the request fails clearly, and nothing is deleted', async () => {
    for (let i = 0; i < 12; i++) await put(`exports/many@example.com/${i}`);
    const error = await s3DeleteAndVerify(
      ctxFor([{ kind: 'prefix', prefix: 'exports/{{identifier}}/' }], 'many@example.com', { maxObjects: 10 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toBe(
      'More than 10 objects match objects under exports/{{identifier}}/: raise the limit if that is expected',
    );
    expect(await exists('exports/many@example.com/11')).toBe(true);
  });

  it('a later rule going over what is left of maxObjects names the configured limit', async () => {
    for (let i = 0; i < 8; i++) await put(`exports/later@example.com/${i}`);
    await put('avatars/later@example.com.png');
    for (let i = 0; i < 3; i++) await put(`uploads/later@example.com/${i}`);
    const rules = [
      { kind: 'prefix', prefix: 'exports/{{identifier}}/' },
      { kind: 'key', key: 'avatars/{{identifier}}.png' },
      { kind: 'prefix', prefix: 'uploads/{{identifier}}/' },
    ];
    const error = await s3DeleteAndVerify(ctxFor(rules, 'later@example.com', { maxObjects: 9 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toBe(
      "More than 9 objects match this request's rules (9 before objects under uploads/{{identifier}}/): raise the limit if that is expected",
    );
    expect(await exists('exports/later@example.com/0')).toBe(true);
  });

  it("an identifier holding the prefix's separator cannot reach another subject's objects", async () => {
    await put('exports/team/member@example.com/a.csv');
    const error = await s3DeleteAndVerify(
      ctxFor([{ kind: 'prefix', prefix: 'exports/{{identifier}}/' }], 'team/member@example.com'),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "The identifier contains '/', which the prefix exports/{{identifier}}/ uses as a separator",
    );
    // Only '/' ends the identifier in a prefix: `avatars/john.` would also list avatars/john.smith.png.
    for (const prefix of [
      'exports/{{identifier}}',
      'avatars/{{identifier}}.',
      'u/{{identifier}}-',
      'a/{{identifier}}/b/{{identifier}}_',
    ])
      expect(s3ConfigSchema.safeParse({ bucket: BUCKET, rules: [{ kind: 'prefix', prefix }] }).success).toBe(false);
    expect(
      s3ConfigSchema.safeParse({
        bucket: BUCKET,
        rules: [{ kind: 'prefix', prefix: 'a/{{identifier}}/b/{{identifier}}/' }],
      }).success,
    ).toBe(true);
  });

  it('verification catches an object written again after the deletion', async () => {
    await put('uploads/back@example.com/1');
    let stop = false;
    const writer = (async () => {
      while (!stop) await put('uploads/back@example.com/1').catch(() => {});
    })();
    try {
      let outcome;
      for (let i = 0; i < 50 && outcome?.kind !== 'retry'; i++)
        outcome = await s3DeleteAndVerify(
          ctxFor([{ kind: 'prefix', prefix: 'uploads/{{identifier}}/' }], 'back@example.com'),
        );
      expect(outcome).toMatchObject({
        kind: 'retry',
        reason: 'Verification found objects still present: objects under uploads/{{identifier}}/: 1',
      });
    } finally {
      stop = true;
      await writer;
    }
  });

  it('a missing bucket is a permanent failure', async () => {
    const ctx = {
      ...ctxFor([{ kind: 'key', key: 'a/{{identifier}}' }], 'x@example.com'),
      config: s3ConfigSchema.parse({ bucket: 'no-such-bucket', rules: [{ kind: 'key', key: 'a/{{identifier}}' }] }),
    };
    await expect(s3DeleteAndVerify(ctx)).rejects.toBeInstanceOf(PermanentError);
  });
});

describe('S3 versioned bucket, through the official AWS SDK v3 against a loopback versioned bucket (s3rver has no versioning)', () => {
  let versioned: Awaited<ReturnType<typeof startVersionedS3>>;
  beforeAll(async () => {
    versioned = await startVersionedS3('history', { pageSize: 3 });
  });
  afterAll(async () => {
    await versioned?.stop();
  });
  const versionedCtx = (rules: unknown[], identifier: string, extra: object = {}) => ({
    secrets: versioned.credentials as Record<string, unknown>,
    resolveHost,
    config: s3ConfigSchema.parse({ bucket: 'history', rules, ...extra }),
    identifier,
    trail: [] as Exchange[],
  });

  it('erases every version and delete marker under the rules, page after page, and nothing of anyone else', async () => {
    const id = 'ver@example.com';
    for (let i = 0; i < 3; i++) versioned.put(`exports/${id}/a.csv`);
    versioned.deleteCurrent(`exports/${id}/a.csv`); // an object "deleted" earlier: its versions are still there
    versioned.put(`exports/${id}/b.csv`);
    versioned.put(`avatars/${id}.png`);
    versioned.put(`avatars/${id}.png`);
    versioned.put(`exports/${id}x/a.csv`);
    versioned.put(`avatars/${id}.png.bak`);
    const rules = [
      { kind: 'prefix', prefix: 'exports/{{identifier}}/' },
      { kind: 'key', key: 'avatars/{{identifier}}.png' },
    ];
    const dry = await s3DryRun(versionedCtx(rules, id));
    expect(dry.map((r) => r.rows)).toEqual([5, 2]);
    expect(versioned.versionsOf(`exports/${id}/a.csv`)).toBe(4);

    const ctx = versionedCtx(rules, id);
    const outcome = await s3DeleteAndVerify(ctx);
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: {
        changed: { 'objects under exports/{{identifier}}/': 5, 'object avatars/{{identifier}}.png': 2 },
        remaining: { 'objects under exports/{{identifier}}/': 0 },
      },
    });
    expect(versioned.keys()).toEqual([`avatars/${id}.png.bak`, `exports/${id}x/a.csv`]);
    // Versions were listed (pages of 3, so the markers were followed) and deleted by version id, never by a plain DeleteObject.
    expect(ctx.trail.map((s) => (s.kind === 'sql' ? s.statement.split(' ')[0] : ''))).toEqual(
      expect.arrayContaining(['GetBucketVersioning', 'ListObjectVersions', 'DeleteObjects']),
    );
    expect(ctx.trail.some((s) => s.kind === 'sql' && s.statement.startsWith('ListObjectsV2'))).toBe(false);
    expect(versioned.calls).toContain('GET /{bucket}?key-marker,prefix,version-id-marker,versions');
    expect(versioned.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
    expect(JSON.stringify(ctx.trail)).not.toContain(id);
  });

  it('counts versions against the limit: above it the request fails and nothing is erased', async () => {
    for (let i = 0; i < 4; i++) versioned.put('exports/lim@example.com/a.csv');
    const error = await s3DeleteAndVerify(
      versionedCtx([{ kind: 'prefix', prefix: 'exports/{{identifier}}/' }], 'lim@example.com', { maxObjects: 3 }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'More than 3 objects match objects under exports/{{identifier}}/: raise the limit if that is expected',
    );
    expect(versioned.versionsOf('exports/lim@example.com/a.csv')).toBe(4);
  });
});
