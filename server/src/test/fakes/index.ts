import type { IntegrationType } from '@shared/statuses';
import { createCustomerDatabase } from '../customer-db';
import { startAmplitudeFake } from './amplitude';
import { startGoogleFake } from './google-analytics';
import { startMixpanelFake } from './mixpanel';
import { startPosthogFake } from './posthog';
import { startSegmentFake } from './segment';
import { startWebhookServer } from './webhook-server';
import { startStripeFake } from './stripe';
import { startHubspotFake } from './hubspot';
import { startZendeskFake } from './zendesk';
import { startIntercomFake } from './intercom';
import { startMailchimpFake } from './mailchimp';
import { startSendgridFake } from './sendgrid';
import { startAuth0Fake } from './auth0';
import { startBrazeFake } from './braze';
import { startKlaviyoFake } from './klaviyo';
import { startCustomerioFake } from './customerio';

/** A destination for tests: where it listens (an http URL, or a PostgreSQL connection string) and how to stop it. */
export interface StandIn {
  url: string;
  close(): Promise<void>;
}

/**
 * The stand-in destination of every integration type: a loopback server implementing the
 * vendor's documented contract, or a real database. Total by type, so a connector without
 * a fake does not compile.
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
  HUBSPOT: () => startHubspotFake(),
  ZENDESK: () => startZendeskFake(),
  INTERCOM: () => startIntercomFake(),
  MAILCHIMP: () => startMailchimpFake(),
  SENDGRID: () => startSendgridFake(),
  AUTH0: () => startAuth0Fake(),
  BRAZE: () => startBrazeFake(),
  KLAVIYO: () => startKlaviyoFake(),
  CUSTOMERIO: () => startCustomerioFake(),
};
