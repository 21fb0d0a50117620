import { z } from 'zod';

/**
 * Configuration fields that name a URL the service will call, whatever their key (Braze's
 * `restEndpoint`, a vendor's `baseUrl`, a webhook's `url`): each is checked against the
 * outbound policy when the integration is saved, not first when it is called.
 */
export const outboundUrlFields = z.registry<{ outboundUrl: true }>();

/** Declares `schema` a URL the service calls (see `outboundUrlFields`). */
export function outboundUrl<S extends z.ZodType>(schema: S): S {
  outboundUrlFields.add(schema, { outboundUrl: true });
  return schema;
}
