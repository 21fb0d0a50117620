import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A versioned S3 bucket on loopback, for the one path `s3rver` cannot serve: it answers
 * `?versioning` with NotImplemented. Implements, path-style, the calls the S3 driver makes
 * on a versioned bucket, as the Amazon S3 API Reference documents them:
 * - GetBucketVersioning (`GET /{bucket}?versioning`): `VersioningConfiguration` with `Status`;
 * - HeadBucket (`HEAD /{bucket}`): 200, or 404 for no such bucket;
 * - ListBuckets (`GET /`): `ListAllMyBucketsResult`;
 * - ListObjectVersions (`GET /{bucket}?versions`): `ListVersionsResult` with `Version` and
 *   `DeleteMarker` entries, keys in ascending order and each key's versions newest first,
 *   truncated at `max-keys` (here at most `pageSize`) with `NextKeyMarker`/`NextVersionIdMarker`,
 *   resumed after `key-marker`/`version-id-marker`;
 * - DeleteObjects (`POST /{bucket}?delete`): a `Delete` body of `Object` entries with `Key`
 *   and optional `VersionId`; with a version id that version (or delete marker) is removed for
 *   good, without one a delete marker is added; answers `DeleteResult` (`Deleted` entries
 *   unless `Quiet`).
 * Objects are written by the test itself (`put`, `deleteCurrent`), as a client's PutObject
 * and DeleteObject without a version id would. Signatures are not verified. The official
 * AWS SDK v3 client parses every answer, so a shape it does not accept fails the tests.
 */
export async function startVersionedS3(bucket: string, options: { pageSize?: number } = {}) {
  const pageSize = options.pageSize ?? 1000;
  /** Each key's versions, oldest first. */
  const objects = new Map<string, { versionId: string; deleteMarker: boolean; at: Date }[]>();
  const calls: string[] = [];

  const escape = (s: string) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;');
  const unescape = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  const xml = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': randomBytes(8).toString('hex') });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
  };
  const s3Error = (res: http.ServerResponse, status: number, code: string, message: string) =>
    xml(res, status, `<Error><Code>${code}</Code><Message>${escape(message)}</Message></Error>`);
  const newVersion = (key: string, deleteMarker: boolean) => {
    const list = objects.get(key) ?? [];
    const version = { versionId: randomBytes(12).toString('base64url'), deleteMarker, at: new Date() };
    list.push(version);
    objects.set(key, list);
    return version.versionId;
  };

  /** Every version and delete marker under `prefix`, in the order ListObjectVersions returns them. */
  const entries = (prefix: string) =>
    [...objects.keys()]
      .filter((key) => key.startsWith(prefix))
      .sort()
      .flatMap((key) => {
        const list = objects.get(key)!;
        return [...list].reverse().map((v, i) => ({ key, ...v, isLatest: i === 0 }));
      });

  function listVersions(url: URL, res: http.ServerResponse) {
    const prefix = url.searchParams.get('prefix') ?? '';
    const keyMarker = url.searchParams.get('key-marker') ?? '';
    const versionIdMarker = url.searchParams.get('version-id-marker') ?? '';
    const maxKeys = Math.min(Number(url.searchParams.get('max-keys') ?? 1000), pageSize);
    let all = entries(prefix);
    if (keyMarker) {
      // After the marker: later keys, or, with a version id marker, the marker key's older versions.
      const at = versionIdMarker ? all.findIndex((e) => e.key === keyMarker && e.versionId === versionIdMarker) : -1;
      all = at >= 0 ? all.slice(at + 1) : all.filter((e) => e.key > keyMarker);
    }
    const page = all.slice(0, maxKeys);
    const truncated = all.length > page.length;
    const last = page.at(-1);
    const body = page
      .map((e) =>
        e.deleteMarker
          ? `<DeleteMarker><Key>${escape(e.key)}</Key><VersionId>${e.versionId}</VersionId><IsLatest>${e.isLatest}</IsLatest><LastModified>${e.at.toISOString()}</LastModified></DeleteMarker>`
          : `<Version><Key>${escape(e.key)}</Key><VersionId>${e.versionId}</VersionId><IsLatest>${e.isLatest}</IsLatest><LastModified>${e.at.toISOString()}</LastModified><ETag>"${e.versionId}"</ETag><Size>4</Size><StorageClass>STANDARD</StorageClass></Version>`,
      )
      .join('');
    xml(
      res,
      200,
      `<ListVersionsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${escape(prefix)}</Prefix><KeyMarker>${escape(keyMarker)}</KeyMarker>` +
        `<VersionIdMarker>${escape(versionIdMarker)}</VersionIdMarker><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
        (truncated && last
          ? `<NextKeyMarker>${escape(last.key)}</NextKeyMarker><NextVersionIdMarker>${last.versionId}</NextVersionIdMarker>`
          : '') +
        `${body}</ListVersionsResult>`,
    );
  }

  function deleteObjects(body: string, res: http.ServerResponse) {
    const quiet = /<Quiet>\s*true\s*<\/Quiet>/.test(body);
    const results: string[] = [];
    for (const [, object] of body.matchAll(/<Object>([\s\S]*?)<\/Object>/g)) {
      const key = unescape(/<Key>([\s\S]*?)<\/Key>/.exec(object!)?.[1] ?? '');
      const versionId = /<VersionId>([\s\S]*?)<\/VersionId>/.exec(object!)?.[1];
      if (versionId) {
        const list = (objects.get(key) ?? []).filter((v) => v.versionId !== versionId);
        if (list.length > 0) objects.set(key, list);
        else objects.delete(key);
        if (!quiet) results.push(`<Deleted><Key>${escape(key)}</Key><VersionId>${versionId}</VersionId></Deleted>`);
      } else {
        const marker = newVersion(key, true);
        if (!quiet)
          results.push(
            `<Deleted><Key>${escape(key)}</Key><DeleteMarker>true</DeleteMarker><DeleteMarkerVersionId>${marker}</DeleteMarkerVersionId></Deleted>`,
          );
      }
    }
    xml(res, 200, `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${results.join('')}</DeleteResult>`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://s3.local');
      const [, name, ...rest] = url.pathname.split('/');
      const key = rest.map(decodeURIComponent).join('/');
      const query = [...url.searchParams.keys()]
        .filter((k) => k !== 'x-id')
        .sort()
        .join(',');
      calls.push(`${req.method} ${name ? '/{bucket}' : '/'}${key ? '/{key}' : ''}${query ? `?${query}` : ''}`);
      if (!name) {
        if (req.method === 'GET')
          return xml(
            res,
            200,
            `<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>test</ID></Owner><Buckets><Bucket><Name>${bucket}</Name><CreationDate>2026-01-01T00:00:00.000Z</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>`,
          );
        return s3Error(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      }
      if (name !== bucket) {
        if (req.method === 'HEAD') {
          res.writeHead(404);
          return res.end();
        }
        return s3Error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
      }
      if (!key && req.method === 'HEAD') {
        res.writeHead(200);
        return res.end();
      }
      if (!key && req.method === 'GET' && url.searchParams.has('versioning'))
        return xml(
          res,
          200,
          '<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>',
        );
      if (!key && req.method === 'GET' && url.searchParams.has('versions')) return listVersions(url, res);
      if (!key && req.method === 'POST' && url.searchParams.has('delete'))
        return deleteObjects(Buffer.concat(chunks).toString(), res);
      return s3Error(
        res,
        501,
        'NotImplemented',
        'A header or query you provided implies functionality that is not implemented.',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    credentials: { accessKeyId: 'AKIDVERSIONED', secretAccessKey: 'versioned-secret', region: 'us-east-1', endpoint },
    /** The requests received, by shape (`GET /{bucket}?versions,prefix`). */
    calls,
    /** A new version of `key`, as PutObject would make it. */
    put: (key: string) => newVersion(key, false),
    /** A delete marker on top of `key`, as DeleteObject without a version id would add it. */
    deleteCurrent: (key: string) => newVersion(key, true),
    /** How many versions and delete markers `key` has. */
    versionsOf: (key: string) => objects.get(key)?.length ?? 0,
    keys: () => [...objects.keys()].sort(),
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
