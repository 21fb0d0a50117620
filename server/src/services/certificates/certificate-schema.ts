import type { SchemaObject } from 'openapi3-ts/oas31';

const instant: SchemaObject = { type: 'string', format: 'date-time' };
const maybeInstant: SchemaObject = { type: ['string', 'null'], format: 'date-time' };

const storeEvidence: SchemaObject = {
  type: 'object',
  required: ['recorded', 'rowsChanged', 'verification'],
  additionalProperties: false,
  properties: {
    recorded: { const: true },
    rowsChanged: {
      description: 'Rows changed per statement ("delete on public.orders": 2), as the store reported them.',
      type: ['object', 'null'],
    },
    verification: {
      type: 'object',
      required: ['remainingMatchingRows', 'passed'],
      additionalProperties: false,
      properties: {
        remainingMatchingRows: { type: 'object', description: 'Rows still matching the identifier, per table or key.' },
        passed: { type: 'boolean', description: 'No matching row remained after the deletion.' },
      },
    },
    retainedBy: {
      description:
        "What the store itself still keeps after the deletion, as read from it (Snowflake: each table's Time Travel period, then Fail-safe; BigQuery: the dataset's time travel window, then fail-safe).",
      type: 'object',
      required: ['notice', 'longestDays', 'failSafeDays'],
      additionalProperties: false,
      properties: {
        notice: { type: 'string', description: 'The same in words, as the outcome of the step stated it.' },
        retentionDays: { type: 'object', description: 'Time Travel retention in days, per table changed (Snowflake).' },
        longestDays: {
          type: 'integer',
          minimum: 0,
          description: 'The longest period deleted rows stay recoverable by the store’s own means.',
        },
        failSafeDays: { type: 'integer', minimum: 0 },
      },
    },
  },
};

const destination: SchemaObject = {
  type: 'object',
  required: [
    'integrationRequestId',
    'name',
    'type',
    'finalStatus',
    'vendorTaskId',
    'attempts',
    'requestedAt',
    'startedAt',
    'completedAt',
    'reverifiedAt',
    'reappearedAt',
    'evidence',
  ],
  additionalProperties: false,
  properties: {
    integrationRequestId: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string', description: 'The destination type (POSTGRES, WEBHOOK, STRIPE, …).' },
    finalStatus: { enum: ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'] },
    vendorTaskId: {
      type: ['string', 'null'],
      description: "The destination's task or job id, the subject's identifier blanked out of it as [identifier].",
    },
    attempts: { type: 'integer', minimum: 0 },
    requestedAt: instant,
    startedAt: maybeInstant,
    completedAt: maybeInstant,
    reverifiedAt: maybeInstant,
    reappearedAt: maybeInstant,
    evidence: {
      oneOf: [
        {
          type: 'object',
          required: ['recorded'],
          additionalProperties: false,
          properties: { recorded: { const: false } },
        },
        storeEvidence,
        {
          type: 'object',
          required: ['recorded', 'vendor'],
          additionalProperties: false,
          properties: {
            recorded: { const: true },
            vendor: { type: 'object', description: 'What the vendor reported, identifier and secrets blanked out.' },
          },
        },
      ],
    },
  },
};

const subject: SchemaObject = {
  description: "The subject, only by the identifier's keyed hash, or the record that retention deleted it.",
  oneOf: [
    {
      type: 'object',
      required: ['identifierHash'],
      additionalProperties: false,
      properties: {
        identifierHash: {
          type: 'object',
          required: ['algorithm', 'keyedWith', 'value'],
          additionalProperties: false,
          properties: {
            algorithm: { const: 'HMAC-SHA256' },
            keyedWith: { const: 'service identifier pepper' },
            value: { type: 'string' },
          },
        },
      },
    },
    {
      type: 'object',
      required: ['identifierRemoved'],
      additionalProperties: false,
      properties: {
        identifierRemoved: {
          type: 'object',
          required: ['by', 'at'],
          additionalProperties: false,
          properties: { by: { const: 'retention policy' }, at: instant },
        },
      },
    },
  ],
};

const chainEntry = (sealed: boolean): SchemaObject => ({
  type: ['object', 'null'],
  required: ['chainSeq', 'hash', ...(sealed ? ['sealedAt'] : [])],
  additionalProperties: false,
  properties: {
    chainSeq: { type: 'string', pattern: '^[0-9]+$' },
    hash: { type: 'string' },
    ...(sealed ? { sealedAt: instant } : {}),
  },
});

/**
 * The JSON Schema (2020-12) of a certificate download, the OpenAPI document's `Certificate`
 * (served alone, with its `$schema`, at /api/certificate.schema.json). Its description says what
 * the signature covers.
 */
export const certificateJsonSchema: SchemaObject = {
  title: 'Certificate of deletion',
  description:
    '`signature.value` is the base64 Ed25519 signature (RFC 8032) of the UTF-8 bytes of `certificate` ' +
    'in the JSON Canonicalization Scheme of RFC 8785 (JCS); nothing else is signed. Verify it with the ' +
    "organization's published public key, not only the `publicKey` the document carries.",
  type: 'object',
  required: ['certificate', 'signature'],
  additionalProperties: false,
  properties: {
    certificate: {
      type: 'object',
      required: ['type', 'version', 'issuedAt', 'issuer', 'deletionRequest', 'destinations', 'auditChain'],
      additionalProperties: false,
      properties: {
        type: {
          enum: ['certificate-of-deletion', 'deletion-report'],
          description: 'A certificate of deletion only when every destination succeeded and no data was found again.',
        },
        dataReappeared: { const: true },
        version: { const: 1 },
        issuedAt: instant,
        issuer: {
          type: 'object',
          required: ['organizationId', 'organizationName'],
          additionalProperties: false,
          properties: { organizationId: { type: 'string' }, organizationName: { type: 'string' } },
        },
        deletionRequest: {
          type: 'object',
          required: [
            'id',
            'status',
            'workspace',
            'subject',
            'regulation',
            'receivedAt',
            'dueAt',
            'dueExtendedAt',
            'receiptConfirmBy',
            'receiptConfirmedAt',
            'completedAt',
          ],
          additionalProperties: false,
          properties: {
            id: { type: 'string' },
            status: { enum: ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'] },
            workspace: {
              type: 'object',
              required: ['id', 'name'],
              additionalProperties: false,
              properties: { id: { type: 'string' }, name: { type: 'string' } },
            },
            subject,
            regulation: { type: ['string', 'null'] },
            receivedAt: instant,
            dueAt: maybeInstant,
            dueExtendedAt: maybeInstant,
            receiptConfirmBy: maybeInstant,
            receiptConfirmedAt: maybeInstant,
            completedAt: maybeInstant,
          },
        },
        destinations: { type: 'array', items: destination },
        auditChain: {
          type: 'object',
          required: ['head', 'lastEntryOfRequest'],
          additionalProperties: false,
          properties: { head: chainEntry(true), lastEntryOfRequest: chainEntry(false) },
        },
      },
    },
    signature: {
      type: 'object',
      required: ['algorithm', 'keyId', 'publicKey', 'value'],
      additionalProperties: false,
      properties: {
        algorithm: { const: 'Ed25519' },
        keyId: { type: 'string' },
        publicKey: { type: 'string', description: 'The signing public key, SPKI DER in base64.' },
        value: { type: 'string', description: 'The Ed25519 signature, base64.' },
      },
    },
  },
};
