import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertHostAllowed,
  assertUrlAllowed,
  blockedReason,
  createOutboundPolicy,
  guardedLookup,
  policyFromConfig,
} from './ssrf';

const strict = createOutboundPolicy([]);

describe('blockedReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local / cloud metadata'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved / broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local (includes fd00:ec2::254 metadata)'],
    ['fc00::1', 'unique local (includes fd00:ec2::254 metadata)'],
    ['ff02::1', 'multicast'],
  ])('%s is blocked (%s)', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local / cloud metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local / cloud metadata'],
    ['64:ff9b:1::a9fe:a9fe', 'link-local / cloud metadata'],
    ['::ffff:0:a9fe:a9fe', 'link-local / cloud metadata'],
    ['2002:7f00:1::', 'loopback'],
  ])('IPv4 inside IPv6 %s is blocked as %s', (address, reason) => {
    expect(blockedReason(address)).toContain(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(blockedReason(address)).toBeNull();
    },
  );
});

describe('assertUrlAllowed and assertHostAllowed', () => {
  it('refuses private, loopback and metadata literals and names, with a clear message', async () => {
    for (const url of [
      'http://127.0.0.1/hook',
      'http://[::1]:8080/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://10.0.0.5/',
      'http://0.0.0.0:5432/',
      'https://localhost/',
      'https://app.localhost/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://2130706433/', // 127.0.0.1 as one decimal number; the URL parser normalises it
      'http://0x7f.1/',
    ]) {
      await expect(assertUrlAllowed(url, strict), url).rejects.toThrow(/not allowed/);
    }
  });

  it('accepts public literals and refuses non-http schemes', async () => {
    await expect(assertUrlAllowed('https://8.8.8.8/x', strict)).resolves.toMatchObject({
      address: '8.8.8.8',
      family: 4,
    });
    await expect(assertUrlAllowed('https://[2606:4700:4700::1111]/', strict)).resolves.toMatchObject({ family: 6 });
    await expect(assertUrlAllowed('file:///etc/passwd', strict)).rejects.toThrow(/scheme file: is not allowed/);
    await expect(assertUrlAllowed('gopher://8.8.8.8/', strict)).rejects.toThrow(/scheme/);
    await expect(assertUrlAllowed('not a url', strict)).rejects.toThrow(/Not a valid URL/);
  });

  it('checks database hosts the same way', async () => {
    await expect(assertHostAllowed('127.0.0.1', strict)).rejects.toThrow(/loopback/);
    await expect(assertHostAllowed('[::1]', strict)).rejects.toThrow(/loopback/);
    await expect(assertHostAllowed('localhost', strict)).rejects.toThrow(/not allowed/);
    await expect(assertHostAllowed('', strict)).rejects.toThrow(/empty/);
    await expect(assertHostAllowed('8.8.4.4', strict)).resolves.toMatchObject({ address: '8.8.4.4' });
  });

  it('the allowlist opens exactly what it names: addresses, CIDRs and host names', async () => {
    const policy = policyFromConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8, ::1, db.internal, *.corp.example' });
    await expect(assertUrlAllowed('http://127.0.0.1:9000/', policy)).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(assertUrlAllowed('http://[::1]:9000/', policy)).resolves.toMatchObject({ address: '::1' });
    await expect(assertUrlAllowed('http://[::ffff:127.0.0.1]/', policy)).resolves.toBeTruthy();
    await expect(assertUrlAllowed('http://localhost:9000/', policy)).resolves.toMatchObject({ host: 'localhost' });
    await expect(assertUrlAllowed('http://10.0.0.1/', policy)).rejects.toThrow(/private/);
    await expect(assertUrlAllowed('http://169.254.169.254/', policy)).rejects.toThrow(/metadata/);
    const named = createOutboundPolicy(['localhost']);
    await expect(assertHostAllowed('localhost', named)).resolves.toBeTruthy();
    await expect(assertHostAllowed('127.0.0.1', named)).rejects.toThrow(/loopback/);
  });

  it('rejects unreadable allowlist entries', () => {
    expect(() => createOutboundPolicy(['10.0.0.0/33'])).toThrow(/Invalid CIDR/);
    expect(() => createOutboundPolicy(['http://x/'])).toThrow(/Invalid entry/);
    expect(createOutboundPolicy(['', ' ']).allowedHosts).toEqual([]);
  });
});

describe('guardedLookup at connect time', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (url: string, lookup: ReturnType<typeof guardedLookup>) =>
    new Promise<string>((resolve, reject) => {
      http
        .get(url, { lookup: lookup as never }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });

  it('refuses a name that resolves to a blocked address, before connecting', async () => {
    await expect(get(`http://localhost:${port}/`, guardedLookup(strict))).rejects.toMatchObject({
      code: 'ERR_OUTBOUND_BLOCKED',
    });
  });

  it('connects when the allowlist permits the resolved address', async () => {
    const policy = createOutboundPolicy(['127.0.0.1', '::1']);
    await expect(get(`http://localhost:${port}/`, guardedLookup(policy))).resolves.toBe('reached');
  });

  it('answers in both the single-address and the all-addresses calling styles', async () => {
    const lookup = guardedLookup(createOutboundPolicy(['127.0.0.0/8', '::1']));
    const single = await new Promise<unknown[]>((resolve) =>
      lookup('localhost', { family: 4 }, (...args) => resolve(args)),
    );
    expect(single).toEqual([null, '127.0.0.1', 4]);
    const all = await new Promise<unknown[]>((resolve) =>
      lookup('localhost', { all: true, family: 4 }, (...args) => resolve(args)),
    );
    expect(all[1]).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});
