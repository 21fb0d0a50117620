import {
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  S3Client,
  type ObjectIdentifier,
} from '@aws-sdk/client-s3';
import { OBJECT_STORE_IDENTIFIER, type S3Config, type S3Rule } from '@shared/integrations/object-stores';
import type { ConfigIssue, DriverContext, Outcome, ReverifyResult } from '../types';
import { PermanentError } from '../types';
import { awsClients, classifyAwsError } from '../stores/aws';
import { MatchBudget } from '../stores/match-budget';
import { recordCall } from '../stores/trail';
import { reverification, verifiedOutcome } from '../stores/verification';

type S3Context = Pick<DriverContext<S3Config>, 'resolveHost' | 'secrets' | 'config' | 'trail' | 'identifier'>;

/** SDK clients per account and endpoint; S3-compatible stores by endpoint are addressed by path (bucket-one.127.0.0.1 resolves nowhere). */
const withS3 = awsClients(
  'S3',
  (options, secrets) => new S3Client({ ...options, forcePathStyle: Boolean(secrets.endpoint) }),
);

/** The prefix or key of a rule with the identifier in place; an identifier holding the prefix's separator could reach another subject's objects. */
function target(rule: S3Rule, identifier: string): { prefix: string; exact: boolean } {
  const template = rule.kind === 'prefix' ? rule.prefix : rule.key;
  if (rule.kind === 'prefix') {
    const separator = template.slice(template.indexOf(OBJECT_STORE_IDENTIFIER) + OBJECT_STORE_IDENTIFIER.length)[0]!;
    if (identifier.includes(separator))
      throw new PermanentError(
        `The identifier contains '${separator}', which the prefix ${template} uses as a separator`,
      );
  }
  return { prefix: template.split(OBJECT_STORE_IDENTIFIER).join(identifier), exact: rule.kind === 'key' };
}

const ruleLabel = (rule: S3Rule) => (rule.kind === 'prefix' ? `objects under ${rule.prefix}` : `object ${rule.key}`);

/** Whether the bucket keeps versions (S3-compatible stores without versioning answer NotImplemented: none). */
async function isVersioned(client: S3Client, ctx: S3Context): Promise<boolean> {
  try {
    const result = await recordCall(
      ctx.trail,
      `GetBucketVersioning ${ctx.config.bucket}`,
      () => client.send(new GetBucketVersioningCommand({ Bucket: ctx.config.bucket })),
      () => 0,
    );
    return result.Status === 'Enabled' || result.Status === 'Suspended';
  } catch (error) {
    if ((error as { name?: string }).name === 'NotImplemented') return false;
    throw error;
  }
}

/**
 * Every object a rule reaches: in a versioned bucket every version and delete marker, so
 * that nothing can be restored afterwards. Going over the request's budget is a permanent failure.
 */
async function objectsOf(
  client: S3Client,
  ctx: S3Context,
  rule: S3Rule,
  versioned: boolean,
  budget: MatchBudget,
): Promise<ObjectIdentifier[]> {
  const { prefix, exact } = target(rule, ctx.identifier);
  const found: ObjectIdentifier[] = [];
  const add = (items: ObjectIdentifier[]) => {
    for (const item of items) if (!exact || item.Key === prefix) found.push(item);
    budget.check(found.length, ruleLabel(rule));
  };
  const Bucket = ctx.config.bucket;
  if (versioned) {
    await recordCall(
      ctx.trail,
      `ListObjectVersions ${Bucket} ${rule.kind === 'prefix' ? rule.prefix : rule.key}`,
      async () => {
        let KeyMarker: string | undefined;
        let VersionIdMarker: string | undefined;
        do {
          const page = await client.send(
            new ListObjectVersionsCommand({ Bucket, Prefix: prefix, KeyMarker, VersionIdMarker }),
          );
          add(
            [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({
              Key: v.Key!,
              VersionId: v.VersionId,
            })),
          );
          KeyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
          VersionIdMarker = page.IsTruncated ? page.NextVersionIdMarker : undefined;
        } while (KeyMarker);
      },
      () => found.length,
    );
  } else {
    await recordCall(
      ctx.trail,
      `ListObjectsV2 ${Bucket} ${rule.kind === 'prefix' ? rule.prefix : rule.key}`,
      async () => {
        let ContinuationToken: string | undefined;
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken, MaxKeys: exact ? 10 : 1000 }),
          );
          add((page.Contents ?? []).map((o) => ({ Key: o.Key! })));
          ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (ContinuationToken && !exact);
      },
      () => found.length,
    );
  }
  return found;
}

async function pending(client: S3Client, ctx: S3Context) {
  const versioned = await isVersioned(client, ctx);
  const results = [];
  const budget = new MatchBudget(ctx.config.maxObjects, 'objects');
  for (const rule of ctx.config.rules) {
    const objects = await objectsOf(client, ctx, rule, versioned, budget);
    budget.take(objects.length);
    results.push({ rule, objects });
  }
  return { versioned, results };
}

/** The dry run: the objects (and versions) each rule would erase, listed and counted. */
export async function s3DryRun(ctx: S3Context) {
  return withS3(ctx, async (client) => {
    const { results } = await pending(client, ctx);
    return results.map(({ rule, objects }) => ({
      rule: ruleLabel(rule),
      table: ctx.config.bucket,
      action: 'delete',
      rows: objects.length,
      sample: objects.slice(0, 20).map((o) => o.Key!),
    }));
  });
}

/** Objects (and versions) per rule still under the templates: the proof of a deletion (listing again). */
async function remainingObjects(client: S3Client, ctx: S3Context): Promise<Record<string, number>> {
  const remaining: Record<string, number> = {};
  for (const { rule, objects } of (await pending(client, ctx)).results) remaining[ruleLabel(rule)] = objects.length;
  return remaining;
}

/** The deletion's proof again, read-only, some time after SUCCESS (re-verification). */
export async function s3Reverify(ctx: S3Context): Promise<ReverifyResult> {
  return withS3(ctx, async (client) => reverification(await remainingObjects(client, ctx), 'objects'));
}

/** Deletes every listed object (versions included) with DeleteObjects, 1,000 at a time, then lists again as the proof. */
export async function s3DeleteAndVerify(ctx: S3Context): Promise<Outcome> {
  return withS3(ctx, async (client) => {
    const changed: Record<string, number> = {};
    const { results } = await pending(client, ctx);
    for (const { rule, objects } of results) {
      let deleted = 0;
      for (let i = 0; i < objects.length; i += 1000) {
        const batch = objects.slice(i, i + 1000);
        const result = await recordCall(
          ctx.trail,
          `DeleteObjects ${ctx.config.bucket} (${batch.length} of ${ruleLabel(rule)})`,
          () =>
            client.send(
              new DeleteObjectsCommand({ Bucket: ctx.config.bucket, Delete: { Objects: batch, Quiet: true } }),
            ),
          (r) => batch.length - (r.Errors?.length ?? 0),
        );
        if (result.Errors?.length) {
          const codes = [...new Set(result.Errors.map((e) => e.Code))].join(', ');
          throw classifyAwsError(
            Object.assign(new Error(`${result.Errors.length} object(s) could not be deleted (${codes})`), {
              name: codes,
              $metadata: { httpStatusCode: codes.includes('AccessDenied') ? 403 : 500 },
            }),
            'S3',
          );
        }
        deleted += batch.length;
      }
      changed[ruleLabel(rule)] = deleted;
    }
    const remaining = await remainingObjects(client, ctx);
    return verifiedOutcome(changed, remaining, {
      stillThere: 'objects still present',
      done: (total) => `${total} object(s) deleted from ${ctx.config.bucket}; verified that none is left`,
    });
  });
}

/** Schema discovery for S3: the buckets these credentials can list. */
export async function s3ListBuckets(ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>): Promise<string[]> {
  return withS3(ctx, async (client) =>
    ((await client.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name!).sort(),
  );
}

/** Save-time check: the bucket exists and these credentials reach it (HeadBucket), as an issue on the bucket field. */
export async function validateS3Config(
  ctx: Pick<DriverContext<S3Config>, 'resolveHost' | 'secrets' | 'config' | 'trail'>,
): Promise<ConfigIssue[]> {
  const bucket = ctx.config.bucket;
  return withS3(ctx, async (client) => {
    try {
      await recordCall(
        ctx.trail,
        `HeadBucket ${bucket}`,
        () => client.send(new HeadBucketCommand({ Bucket: bucket })),
        () => 1,
      );
      return [];
    } catch (error) {
      // HeadBucket answers with a status and no body: 404 for no such bucket, 403 for a bucket these credentials may not use.
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return [{ path: ['bucket'], message: `Bucket ${bucket} does not exist` }];
      if (status === 403) return [{ path: ['bucket'], message: `These credentials may not access bucket ${bucket}` }];
      throw error;
    }
  });
}

export async function s3TestConnection(
  ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
): Promise<{ ok: boolean; message: string }> {
  try {
    const buckets = await s3ListBuckets(ctx);
    return { ok: true, message: `Connected: ${buckets.length} bucket(s) visible` };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

export const closeS3Clients = () => withS3.closeAll();
