import type { IntegrationType } from '@shared/statuses';
import { createCustomerDatabase } from '../test/customer-db';
import { startAmplitudeFake } from './amplitude/fake';
import { startGoogleFake } from './google-analytics/fake';
import { startMixpanelFake } from './mixpanel/fake';
import { startPosthogFake } from './posthog/fake';
import { startSegmentFake } from './segment/fake';
import { startWebhookServer } from '../test/fakes/webhook-server';
import { startStripeFake } from './stripe/fake';
import { startIterableFake } from './iterable/fake';
import { startShopifyFake } from './shopify/fake';
import { startSalesforceFake } from './salesforce/fake';
import { startHubspotFake } from './hubspot/fake';
import { startZendeskFake } from './zendesk/fake';
import { startIntercomFake } from './intercom/fake';
import { startMailchimpFake } from './mailchimp/fake';
import { startSendgridFake } from './sendgrid/fake';
import { startAuth0Fake } from './auth0/fake';
import { startBrazeFake } from './braze/fake';
import { startKlaviyoFake } from './klaviyo/fake';
import { startCustomerioFake } from './customerio/fake';
import { startFullstoryFake } from './fullstory/fake';
import { startHeapFake } from './heap/fake';
import { startHotjarFake } from './hotjar/fake';
import { startFreshdeskFake } from './freshdesk/fake';
import { startPipedriveFake } from './pipedrive/fake';
import { startChargebeeFake } from './chargebee/fake';
import { startOnesignalFake } from './onesignal/fake';
import { startDynalite } from '../test/stores/dynalite';
import { startMariaDb } from '../test/stores/mariadb';
import { startRedis } from '../test/stores/redis';
import { startS3rver } from '../test/stores/s3rver';
import { startSmtpSink } from '../test/fakes/smtp-sink';
import { generateKeyPairSync } from 'node:crypto';
import { inject } from 'vitest';
import { startSnowflakeFake } from './snowflake/fake';
import { startBigqueryFake } from './bigquery/fake';

/** A destination for tests: where it listens (an http URL, or a postgres:, mysql: or redis: connection string) and how to stop it. */
export interface StandIn {
  url: string;
  close(): Promise<void>;
}

/**
 * The stand-in destination of every integration type, for tests only (production code never
 * imports this list): a loopback server implementing the vendor's documented contract (its
 * folder's `fake.ts`), or a real database. Total by type, so a connector without a fake does
 * not compile.
 */
export const standIns: Record<IntegrationType, () => Promise<StandIn>> = {
  WEBHOOK: startWebhookServer,
  POSTGRES: createCustomerDatabase,
  MIXPANEL: () => startMixpanelFake(),
  AMPLITUDE: () => startAmplitudeFake(),
  SEGMENT: () => startSegmentFake(),
  POSTHOG: () => startPosthogFake(),
  GOOGLE_ANALYTICS: () => startGoogleFake(),
  STRIPE: () => startStripeFake(),
  ITERABLE: () => startIterableFake(),
  SHOPIFY: () => startShopifyFake(),
  SALESFORCE: () => startSalesforceFake(),
  HUBSPOT: () => startHubspotFake(),
  ZENDESK: () => startZendeskFake(),
  INTERCOM: () => startIntercomFake(),
  MAILCHIMP: () => startMailchimpFake(),
  SENDGRID: () => startSendgridFake(),
  AUTH0: () => startAuth0Fake(),
  BRAZE: () => startBrazeFake(),
  KLAVIYO: () => startKlaviyoFake(),
  CUSTOMERIO: () => startCustomerioFake(),
  FULLSTORY: () => startFullstoryFake(),
  HEAP: () => startHeapFake(),
  HOTJAR: () => startHotjarFake(),
  FRESHDESK: () => startFreshdeskFake(),
  PIPEDRIVE: () => startPipedriveFake(),
  CHARGEBEE: () => startChargebeeFake(),
  ONESIGNAL: () => startOnesignalFake(),
  // Data stores: the real servers Debian packages (MariaDB, Redis) and the emulators on npm (s3rver, dynalite).
  MYSQL: async () => {
    const server = await startMariaDb();
    const db = await server.createDatabase('CREATE TABLE users (id int PRIMARY KEY, email varchar(255))');
    const { user, password, port, database } = db.credentials;
    return {
      url: `mysql://${user}:${password}@127.0.0.1:${port}/${database}`,
      close: async () => {
        await db.close();
        await server.stop();
      },
    };
  },
  REDIS: async () => {
    const server = await startRedis();
    return { url: `redis://:${server.credentials.password}@127.0.0.1:${server.port}`, close: () => server.stop() };
  },
  S3: async () => {
    const server = await startS3rver(['stand-in']);
    return { url: server.endpoint, close: () => server.stop() };
  },
  DYNAMODB: async () => {
    const server = await startDynalite();
    return { url: server.endpoint, close: () => server.stop() };
  },
  // Snowflake's SQL API on loopback, running the statements on a real PostgreSQL database.
  SNOWFLAKE: async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const fake = await startSnowflakeFake({
      adminDatabaseUrl: inject('adminDatabaseUrl'),
      account: 'standin-account',
      user: 'deleter',
      publicKey,
    });
    return { url: fake.url, close: fake.close };
  },
  // A manual integration's owners are reached by email: a real SMTP server on loopback.
  MANUAL: async () => {
    const sink = await startSmtpSink();
    return { url: `smtp://127.0.0.1:${sink.port}`, close: sink.close };
  },
  // BigQuery's REST API and Google's token endpoint on loopback, its statements run by a real PostgreSQL.
  BIGQUERY: async () => {
    const fake = await startBigqueryFake({ database: await createCustomerDatabase() });
    return { url: fake.url, close: fake.close };
  },
};
