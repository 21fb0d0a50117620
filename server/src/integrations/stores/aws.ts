import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { DriverContext } from '../types';
import { PermanentError, TransientError } from '../types';
import { IdleCache } from './idle-cache';

/** Credentials of an AWS account (see accountSecretSchemas.AWS); `endpoint` for S3-compatible stores and emulators. */
export interface AwsSecrets {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region?: string;
  endpoint?: string;
}

export function awsSecretsOf(ctx: Pick<DriverContext, 'secrets'>): AwsSecrets {
  const secrets = ctx.secrets as AwsSecrets | null;
  if (!secrets?.accessKeyId || !secrets.secretAccessKey)
    throw new PermanentError('This integration needs an AWS account (access key)');
  return secrets;
}

/**
 * The SDK's HTTP handler with every connection's address checked by the SSRF policy (the
 * lookup runs for each new connection, so DNS rebinding cannot slip past). IP-literal
 * endpoints never reach a lookup: `checkEndpoint` checks those before the client is built.
 */
export function guardedRequestHandler(resolveHost: (host: string) => Promise<string>) {
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    resolveHost(hostname).then(
      (address) => {
        const family = net.isIPv6(address) ? 6 : 4;
        if ((options as { all?: boolean }).all)
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address, family },
          ]);
        else callback(null, address, family);
      },
      (error: Error) => callback(Object.assign(error, { code: 'EBLOCKED' }) as NodeJS.ErrnoException, '', 4),
    );
  };
  return new NodeHttpHandler({
    httpAgent: new http.Agent({ keepAlive: true, lookup, maxSockets: 16 }),
    httpsAgent: new https.Agent({ keepAlive: true, lookup, maxSockets: 16 }),
    connectionTimeout: 10_000,
    requestTimeout: 60_000,
  });
}

/** Checks the configured endpoint (or the AWS host the SDK will use) against the SSRF policy. */
export async function checkEndpoint(
  secrets: AwsSecrets,
  resolveHost: (host: string) => Promise<string>,
): Promise<void> {
  if (!secrets.endpoint) return;
  let url: URL;
  try {
    url = new URL(secrets.endpoint);
  } catch {
    throw new PermanentError('The endpoint is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new PermanentError('The endpoint must be an http(s) URL');
  await resolveHost(url.hostname.replace(/^\[|\]$/g, ''));
}

/** An AWS SDK error as the engine understands it: throttling, 5xx and network errors are transient. */
export function classifyAwsError(error: unknown, what: string): TransientError | PermanentError {
  if (error instanceof TransientError || error instanceof PermanentError) return error;
  const e = error as {
    name?: string;
    message?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
    $retryable?: unknown;
  };
  const status = e.$metadata?.httpStatusCode;
  const message = `${what}: ${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? String(error)}`;
  if (e.code === 'EBLOCKED') return new PermanentError(message);
  if (
    !status ||
    status >= 500 ||
    status === 429 ||
    status === 408 ||
    e.$retryable ||
    /Throttl|SlowDown|ProvisionedThroughputExceeded|RequestLimitExceeded/.test(e.name ?? '')
  ) {
    return new TransientError(message);
  }
  return new PermanentError(message);
}

/** What every AWS SDK client of a store is built with: the account's credentials, region and endpoint, the guarded handler. */
export interface AwsClientOptions {
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  endpoint?: string;
  requestHandler: NodeHttpHandler;
  maxAttempts: number;
}

/**
 * A store's way to its AWS service: an SDK client per account and endpoint (built by `make`
 * from the common options), kept while in use and destroyed, sockets closed, after 10 s idle;
 * the endpoint checked by the SSRF policy first; the SDK's errors classified as `service`'s.
 */
export function awsClients<C extends { destroy(): void }>(
  service: string,
  make: (options: AwsClientOptions, secrets: AwsSecrets) => C,
) {
  const clients = new IdleCache<C>((client) => client.destroy(), 10_000);
  async function withClient<T>(
    ctx: Pick<DriverContext, 'resolveHost' | 'secrets'>,
    use: (client: C) => Promise<T>,
  ): Promise<T> {
    const secrets = awsSecretsOf(ctx);
    await checkEndpoint(secrets, ctx.resolveHost);
    const create = () =>
      make(
        {
          region: secrets.region || 'us-east-1',
          credentials: {
            accessKeyId: secrets.accessKeyId,
            secretAccessKey: secrets.secretAccessKey,
            sessionToken: secrets.sessionToken || undefined,
          },
          endpoint: secrets.endpoint || undefined,
          requestHandler: guardedRequestHandler(ctx.resolveHost),
          maxAttempts: 3,
        },
        secrets,
      );
    try {
      return await clients.with(IdleCache.key([secrets]), create, use);
    } catch (error) {
      throw classifyAwsError(error, service);
    }
  }
  /** `closeAll` destroys every client (the driver's close). */
  return Object.assign(withClient, { closeAll: () => clients.closeAll() });
}
