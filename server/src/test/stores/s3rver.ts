import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';

/**
 * `s3rver` (an S3 emulator on npm) on a free loopback port with its own directory. It knows the
 * access key id S3RVER (V4 signatures are parsed, not verified); it does not implement versioning.
 */
export async function startS3rver(buckets: string[]) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-test-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    credentials: {
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${address.port}`,
    },
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
