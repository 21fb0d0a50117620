import net from 'node:net';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { INTEGRATION_TYPES } from '@shared/statuses';
import { standIns } from '../../integrations/fakes';

describe('stand-in destinations', () => {
  it.each(INTEGRATION_TYPES)('%s has one that starts, answers on loopback, and stops', async (type) => {
    const standIn = await standIns[type]();
    try {
      if (standIn.url.startsWith('http://')) {
        expect(new URL(standIn.url).hostname).toBe('127.0.0.1');
        const response = await fetch(`${standIn.url}/`);
        expect(response.status).toBeGreaterThanOrEqual(200);
        await response.body?.cancel();
      } else if (standIn.url.startsWith('mysql://')) {
        const connection = await mysql.createConnection(standIn.url);
        try {
          const [rows] = await connection.query('SELECT 1 AS one');
          expect(rows).toEqual([{ one: 1 }]);
        } finally {
          await connection.end();
        }
      } else if (standIn.url.startsWith('smtp://')) {
        const { hostname, port } = new URL(standIn.url);
        const greeting = await new Promise<string>((resolve, reject) => {
          const socket = net.connect(Number(port), hostname);
          socket.once('data', (data) => {
            socket.end();
            resolve(data.toString());
          });
          socket.once('error', reject);
        });
        expect(greeting.startsWith('220')).toBe(true);
      } else if (standIn.url.startsWith('redis://')) {
        const client = createClient({ url: standIn.url });
        await client.connect();
        try {
          expect(await client.ping()).toBe('PONG');
        } finally {
          client.destroy();
        }
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
