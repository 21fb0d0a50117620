import { afterAll, beforeAll, expect, it } from 'vitest';
import { mostAtOnce } from '../../test/at-once';
import { createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { closeSessions, withSession } from './sessions';

let customer: CustomerDatabase;

beforeAll(async () => {
  customer = await createCustomerDatabase();
});
afterAll(async () => {
  await closeSessions();
  await customer?.close();
});

/** The most connections 8 sessions held at once for an integration with this `maxConcurrency`, in a worker with `connections` (CUSTOMER_DB_CONNECTIONS). */
const connectionsAtOnce = (maxConcurrency: number | null, connections?: number) =>
  mostAtOnce(8, (inside) =>
    withSession(
      { secrets: customer.credentials, resolveHost: async (host: string) => host, maxConcurrency, connections },
      5_000,
      (error) => error as Error,
      async ({ client }) => {
        await client.query('SELECT 1');
        await inside();
      },
    ),
  );

it("holds as many connections to a customer database at once as the integration's maxConcurrency, else the worker's CUSTOMER_DB_CONNECTIONS, else 4", async () => {
  expect(await connectionsAtOnce(null)).toBe(4);
  expect(await connectionsAtOnce(6)).toBe(6);
  expect(await connectionsAtOnce(2)).toBe(2);
  expect(await connectionsAtOnce(null, 7)).toBe(7);
  expect(await connectionsAtOnce(null, 2)).toBe(2);
  // The integration's own limit comes first.
  expect(await connectionsAtOnce(3, 7)).toBe(3);
});
