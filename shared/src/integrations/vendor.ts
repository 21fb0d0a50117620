import { z } from 'zod';
import { outboundUrl } from './outbound-url';

/** Optional override of a vendor's API host (self-hosted instances, proxies, test fakes). */
export const baseUrlSchema = outboundUrl(
  z
    .string()
    .trim()
    .max(500)
    .regex(
      /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i,
      'An http(s) URL without query string, such as https://eu.mixpanel.com',
    )
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
);

/** The base URL calls go to: the override, or the vendor's host for the region. */
export function vendorBaseUrl<Region extends string>(
  config: { baseUrl?: string; region: Region },
  hosts: Record<Region, string>,
): string {
  return config.baseUrl ?? hosts[config.region];
}
