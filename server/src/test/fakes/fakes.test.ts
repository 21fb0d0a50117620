import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { INTEGRATION_TYPES } from '@shared/statuses';
import { standIns } from './index';

describe('stand-in destinations', () => {
  it.each(INTEGRATION_TYPES)('%s has one that starts, answers on loopback, and stops', async (type) => {
    const standIn = await standIns[type]();
    try {
      if (standIn.url.startsWith('http://')) {
        expect(new URL(standIn.url).hostname).toBe('127.0.0.1');
        const response = await fetch(`${standIn.url}/`);
        expect(response.status).toBeGreaterThanOrEqual(200);
        await response.body?.cancel();
      } else {
        const client = new pg.Client({ connectionString: standIn.url });
        await client.connect();
        try {
          expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        } finally {
          await client.end();
        }
      }
    } finally {
      await standIn.close();
    }
  });
});
