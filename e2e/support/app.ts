import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { inject } from 'vitest';

export const baseUrl = () => inject('baseUrl');

/** The port of the app's embedded PostgreSQL (in the cluster's pid file). */
export function appDatabasePort(): number {
  const pidFile = path.join(inject('dataDir'), 'postgres', 'postmaster.pid');
  return Number(fs.readFileSync(pidFile, 'utf8').split('\n')[3]);
}

/** A client on the app's embedded PostgreSQL: its own database, or another one in the same cluster. */
export async function connectAppDatabase(database = 'deletion_service'): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: `postgresql://postgres:postgres@127.0.0.1:${appDatabasePort()}/${database}`,
  });
  await client.connect();
  return client;
}

/** The public REST API, as a partner's backend calls it. */
export async function publicApi(method: string, pathname: string, pat: string, body?: unknown) {
  const response = await fetch(`${baseUrl()}/api/public${pathname}`, {
    method,
    headers: { 'X-API-Key': pat, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** A tRPC mutation from a signed-in page, as the dashboard makes it (its session cookie). */
export async function pageMutation<T>(page: Page, procedure: string, input: unknown): Promise<T> {
  return page.evaluate(
    async ({ procedure, input }) => {
      const response = await fetch(`/trpc/${procedure}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      const answer = (await response.json()) as { result?: { data: unknown }; error?: unknown };
      if (!answer.result) throw new Error(JSON.stringify(answer.error));
      return answer.result.data;
    },
    { procedure, input },
  ) as Promise<T>;
}
