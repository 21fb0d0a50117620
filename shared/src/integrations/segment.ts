import { z } from 'zod';
import { baseUrlSchema } from './vendor';

/** Segment Public API hosts by region. */
export const SEGMENT_HOSTS = { US: 'https://api.segmentapis.com', EU: 'https://eu1.api.segmentapis.com' } as const;

/** Regulation types of Segment's workspace regulations that delete data. */
export const SEGMENT_REGULATION_TYPES = ['SUPPRESS_WITH_DELETE', 'SUPPRESS_WITH_DELETE_INTERNAL', 'DELETE_ONLY', 'DELETE_INTERNAL', 'DELETE_ARCHIVE_ONLY'] as const;

export const segmentConfigSchema = z.object({
  region: z.enum(['US', 'EU']).default('US'),
  regulationType: z.enum(SEGMENT_REGULATION_TYPES).default('SUPPRESS_WITH_DELETE'),
  /** What the request identifier is in Segment. */
  subjectType: z.enum(['USER_ID', 'ANONYMOUS_ID']).default('USER_ID'),
  baseUrl: baseUrlSchema,
});
export type SegmentConfig = z.infer<typeof segmentConfigSchema>;
