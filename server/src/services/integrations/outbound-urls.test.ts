import { describe, expect, it } from 'vitest';
import { integrationTypeInfo } from '@shared/integrations';
import { outboundUrlsOf } from './outbound-urls';

const urlsOf = (type: keyof typeof integrationTypeInfo, config: unknown) =>
  outboundUrlsOf(integrationTypeInfo[type].configSchema, integrationTypeInfo[type].configSchema.parse(config));

describe('the URLs a configuration would call', () => {
  it('are found by what the schema declares, whatever the key', () => {
    expect(urlsOf('BRAZE', { restEndpoint: 'https://rest.fra-01.braze.eu' })).toEqual([
      { url: 'https://rest.fra-01.braze.eu', path: ['restEndpoint'] },
    ]);
    expect(urlsOf('MIXPANEL', { projectToken: 'abc123', baseUrl: 'https://eu.mixpanel.com' })).toEqual([
      { url: 'https://eu.mixpanel.com', path: ['baseUrl'] },
    ]);
  });

  it("are each listed once, a webhook's calls included, with placeholders filled", () => {
    const config = {
      mode: 'async',
      initiate: { url: 'https://hooks.example.com/{{identifier}}', trackingIdPath: '$.id' },
      status: { url: 'https://status.example.com/{{trackingId}}', statusPath: '$.state' },
    };
    expect(urlsOf('WEBHOOK', config)).toEqual([
      { url: 'https://hooks.example.com/placeholder', path: ['initiate', 'url'] },
      { url: 'https://status.example.com/placeholder', path: ['status', 'url'] },
    ]);
  });
});
