/** The props every node of the schema form takes, and the options the form is given. */
import type { JsonSchema, Path } from '../../lib/schema-form';

export interface SchemaFormOptions {
  /** String fields typed as passwords (write-only secrets). */
  isSecret?: (path: Path) => boolean;
  /** Hints under fields, by dotted path without list indices ("initiate.url"). */
  hints?: Record<string, string>;
  /** Labels that read better than the humanized key, by the same dotted path. */
  labels?: Record<string, string>;
  /** Values offered for string fields (found at the destination), by the same dotted path; any value is still taken. */
  suggestions?: Record<string, string[]>;
}

export interface NodeProps {
  schema: JsonSchema;
  value: unknown;
  onChange: (value: unknown) => void;
  path: Path;
  errors: Record<string, string>;
  required: boolean;
  options: SchemaFormOptions;
  /** Path of the root, dropped from hint and label keys ("config"). */
  rootLength: number;
}

export const shapeKey = (path: Path, rootLength: number) =>
  path
    .slice(rootLength)
    .filter((p) => typeof p === 'string')
    .join('.');

/** What every field node is shown with besides its schema and value. */
export type Extra = { label: string; error?: string; hint?: string };
