import http from 'node:http';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { AddressInfo } from 'node:net';
// @ts-expect-error dynalite ships no types
import dynalite from 'dynalite';

const listen = (server: http.Server) =>
  new Promise<AddressInfo>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address() as AddressInfo)));

/**
 * `dynalite` (a DynamoDB implementation on LevelDB, in memory here) on a free loopback port.
 * In front of it, `throttle` can make the next BatchWriteItem calls process only one item per
 * table and hand the rest back as UnprocessedItems, as DynamoDB does under throttling.
 */
export async function startDynalite() {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as http.Server;
  const backend = await listen(server);
  let throttled = 0;
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks).toString();
      let held: Record<string, unknown[]> = {};
      if (throttled > 0 && String(req.headers['x-amz-target']).endsWith('.BatchWriteItem')) {
        throttled--;
        const request = JSON.parse(body) as { RequestItems: Record<string, unknown[]> };
        held = Object.fromEntries(
          Object.entries(request.RequestItems)
            .map(([table, items]) => [table, items.slice(1)])
            .filter(([, items]) => items!.length > 0),
        );
        request.RequestItems = Object.fromEntries(
          Object.entries(request.RequestItems).map(([table, items]) => [table, items.slice(0, 1)]),
        );
        body = JSON.stringify(request);
      }
      const headers = { ...req.headers, 'content-length': String(Buffer.byteLength(body)) };
      const forward = http.request(
        { host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            let text = Buffer.concat(parts).toString();
            if (Object.keys(held).length > 0) text = JSON.stringify({ ...JSON.parse(text), UnprocessedItems: held });
            res.writeHead(answer.statusCode ?? 500, {
              ...answer.headers,
              'content-length': String(Buffer.byteLength(text)),
            });
            res.end(text);
          });
        },
      );
      forward.end(body);
    });
  });
  const front = await listen(proxy);
  const endpoint = `http://127.0.0.1:${front.port}`;
  return {
    endpoint,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret-test', region: 'us-east-1', endpoint },
    /** The next `calls` BatchWriteItem calls each process one item per table. */
    throttle(calls: number) {
      throttled = calls;
    },
    async stop() {
      await new Promise((r) => proxy.close(r));
      await new Promise((r) => server.close(r));
    },
  };
}

/** A table keyed by `key`, with a keys-only global secondary index `by-email` on `email`: the shape the tests erase from. */
export const tableWithEmailIndex = (TableName: string, key: string) =>
  new CreateTableCommand({
    TableName,
    KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
    AttributeDefinitions: [
      { AttributeName: key, AttributeType: 'S' },
      { AttributeName: 'email', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'by-email',
        KeySchema: [{ AttributeName: 'email', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
