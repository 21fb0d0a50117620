import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** A schema of Google's discovery format (a JSON Schema draft 3 dialect with `$ref` by schema id). */
interface DiscoverySchema {
  type?: string;
  format?: string;
  $ref?: string;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  items?: DiscoverySchema;
  enum?: string[];
}

/** 64-bit integers are JSON strings in Google's APIs; the other numbers are numbers. */
function toJsonSchema(schema: DiscoverySchema): object {
  if (schema.$ref) return { $ref: `#/$defs/${schema.$ref}` };
  switch (schema.type) {
    case 'object':
      return {
        type: 'object',
        ...(schema.properties
          ? {
              properties: Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, toJsonSchema(v)])),
              // A field the document does not name is a fake (or a client) speaking another contract.
              additionalProperties: schema.additionalProperties ? toJsonSchema(schema.additionalProperties) : false,
            }
          : schema.additionalProperties
            ? { additionalProperties: toJsonSchema(schema.additionalProperties) }
            : {}),
      };
    case 'array':
      return { type: 'array', ...(schema.items ? { items: toJsonSchema(schema.items) } : {}) };
    case 'string':
      return { type: 'string', ...(schema.enum ? { enum: schema.enum } : {}) };
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'any':
    default:
      return {};
  }
}

/**
 * Validators for the bodies of BigQuery's REST API v2, from Google's discovery document
 * (vendor/bigquery-api.json): each schema of its `schemas` as JSON Schema, objects closed to
 * fields the document does not name.
 */
export function bigqueryDiscoveryValidators() {
  const document = JSON.parse(readFileSync(new URL('./vendor/bigquery-api.json', import.meta.url), 'utf8')) as {
    schemas: Record<string, DiscoverySchema>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({
    $id: 'bigquery.json',
    $defs: Object.fromEntries(Object.entries(document.schemas).map(([name, s]) => [name, toJsonSchema(s)])),
  });
  const validators = new Map<string, ValidateFunction>();
  return {
    /** The problems of `body` as the named schema (Job, QueryRequest, QueryResponse…); empty when it conforms. */
    problems(schema: string, body: unknown): string[] {
      if (!document.schemas[schema]) throw new Error(`No schema ${schema} in the discovery document`);
      let validate = validators.get(schema);
      if (!validate) {
        validate = ajv.compile({ $ref: `bigquery.json#/$defs/${schema}` });
        validators.set(schema, validate);
      }
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message}`);
    },
  };
}
