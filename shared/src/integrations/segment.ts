import { z } from 'zod';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** Segment Public API hosts by region. */
export const SEGMENT_HOSTS = { US: 'https://api.segmentapis.com', EU: 'https://eu1.api.segmentapis.com' } as const;

/**
 * Regulation types of Segment's workspace regulations that delete data (the Public API's
 * CreateWorkspaceRegulationV1Input also has SUPPRESS_ONLY and UNSUPPRESS, which delete nothing;
 * DELETE_ARCHIVE_ONLY and SUPPRESS_WITH_DELETE_INTERNAL exist only for other regulation kinds).
 */
export const SEGMENT_REGULATION_TYPES = ['SUPPRESS_WITH_DELETE', 'DELETE_ONLY', 'DELETE_INTERNAL'] as const;

/** Subject types a workspace regulation accepts (CreateWorkspaceRegulationV1Input.SubjectTypeEnum). */
export const SEGMENT_SUBJECT_TYPES = ['USER_ID', 'OBJECT_ID'] as const;

export const segmentConfigSchema = z.object({
  region: z.enum(['US', 'EU']).default('US'),
  regulationType: z.enum(SEGMENT_REGULATION_TYPES).default('SUPPRESS_WITH_DELETE'),
  /** What the request identifier is in Segment. */
  subjectType: z.enum(SEGMENT_SUBJECT_TYPES).default('USER_ID'),
  baseUrl: baseUrlSchema,
});
export type SegmentConfig = z.infer<typeof segmentConfigSchema>;

export const segmentConnector = defineConnector({
  type: 'SEGMENT',
  label: 'Segment',
  accountTypes: ['API_KEY'],
  accountRequired: true,
  configSchema: segmentConfigSchema,
  catalogue: {
    category: 'Analytics',
    deletes: "the user's data in Segment and supported destinations, then suppression (USER_ID or OBJECT_ID)",
    credentials: 'workspace Public API token (Bearer)',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      'a workspace regulation, polled; cancel while INITIALIZED; a 429 waits for msBeforeNext and the X-RateLimit-Reset date, using no attempt',
    completion: 'days, up to 30 days',
    docsUrl: 'https://docs.segmentapis.com/tag/Deletion-and-Suppression',
  },
});
