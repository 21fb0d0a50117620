import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/harness';

/**
 * A connection lost inside a Prisma transaction (a database restart, a failover): the COMMIT or
 * ROLLBACK that follows fails, and the connection must still go back to the pool. Each one kept
 * used to take a pool slot for good, and `pool.end()` at shutdown waited forever for it.
 */
describe('a transaction whose connection is lost', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let admin: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await database?.close();
  });

  /** Ends the transaction's session from outside and waits until its backend is gone. */
  async function loseConnection(tx: { $queryRaw: typeof database.prisma.$queryRaw }): Promise<void> {
    const [{ pid }] = (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`) as [{ pid: number }];
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 200; i++) {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
      if (rowCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The client reads the server's goodbye before the transaction's next statement is sent.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const checkedOut = () => database.pool.totalCount - database.pool.idleCount;

  it('gives the connection back when the COMMIT fails', async () => {
    const before = checkedOut();
    await expect(database.prisma.$transaction(async (tx) => loseConnection(tx))).rejects.toThrow();
    expect(checkedOut()).toBe(before);
    expect(await database.prisma.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('gives the connection back when the ROLLBACK fails', async () => {
    const before = checkedOut();
    await expect(
      database.prisma.$transaction(async (tx) => {
        await loseConnection(tx);
        throw new Error('the work inside the transaction failed');
      }),
    ).rejects.toThrow();
    expect(checkedOut()).toBe(before);
    expect(await database.prisma.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('still commits and returns the connection for reuse when nothing is lost', async () => {
    const [{ n }] = (await database.prisma.$transaction(
      async (tx) => tx.$queryRaw<{ n: number }[]>`SELECT 41 + 1 AS n`,
    )) as [{ n: number }];
    expect(n).toBe(42);
    expect(checkedOut()).toBe(0);
    // Kept for the next caller, not discarded.
    expect(database.pool.idleCount).toBeGreaterThan(0);
  });

  it('leaves nothing for a shutdown to wait for: the pool ends', async () => {
    const other = await createTestDatabase();
    // The admin connection ends the session on the other database too: same server.
    await expect(other.prisma.$transaction(async (tx) => loseConnection(tx))).rejects.toThrow();
    const ended = await Promise.race([
      other.close().then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    expect(ended).toBe('ended');
  });
});
