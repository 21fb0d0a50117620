import type { IntegrationType } from '@shared/statuses';
import type { ReactNode } from 'react';
import { defaultsFor, pruneEmpty, type JsonSchema } from '../../lib/schema-form';
import type { DiscoveredTable, PostgresDraft } from '../../lib/postgres-rules';
import { SchemaFields, type SchemaFormOptions } from '../schema-form/schema-fields';
import { PostgresRulesEditor, SQL_DIALECT_NOTES, useDiscoveredSchema } from './postgres-rules';
import { DryRunPanel, type DryRunWording } from './dry-run-panel';

interface EditorProps {
  type: IntegrationType;
  /** The form schema made from the type's zod configuration schema. */
  schema: JsonSchema;
  accountId: string | null;
  value: unknown;
  onChange: (next: unknown) => void;
  errors: Record<string, string>;
}

/**
 * How the integration form edits one type's configuration. Most types use the form
 * generated from their zod schema; a type whose configuration is better built against the
 * destination itself (the rule builder of a database, with discovery and a dry run) names
 * its own editor here. The form itself never looks at the type.
 */
export interface ConfigEditor {
  /** The heading of the configuration section. */
  title: string;
  initial(schema: JsonSchema): unknown;
  /** The configuration as it is sent (and validated): empty optional fields removed. */
  toSend(schema: JsonSchema, value: unknown): unknown;
  render(props: EditorProps): ReactNode;
  /** A read-only preview against the destination (a dry run), when the type has one. */
  preview?(props: {
    accountId: string | null;
    config: () => unknown;
    onIssues: (errors: Record<string, string>) => void;
  }): ReactNode;
}

/** Labels and hints for the generated forms, by type. */
const FIELD_OPTIONS: Partial<Record<IntegrationType, SchemaFormOptions>> = {
  WEBHOOK: {
    labels: {
      initiate: 'Initiate deletion call',
      status: 'Status call',
      cancel: 'Cancel call',
      'initiate.trackingIdPath': 'Tracking id JSONPath',
      'status.statusPath': 'Status JSONPath',
    },
    hints: {
      mode: 'sync: the response is the final answer. async: the response carries a tracking id and a status call is polled.',
      'initiate.url': 'Use {{identifier}} for the subject, and {{key}} for any key of the account.',
      'initiate.body': 'JSON, for example {"email": "{{identifier}}"}',
      'initiate.trackingIdPath': 'Async only: where the tracking id is in the JSON response, e.g. $.id',
      'status.url': 'Use {{trackingId}} for the tracking id.',
      'status.statusPath': 'Where the status value is in the JSON response, e.g. $.status',
    },
  },
};

/** The form generated from the type's schema; `suggestions` are values its text fields offer. */
function GeneratedFields(props: EditorProps & { suggestions?: Record<string, string[]> }) {
  return (
    <SchemaFields
      key={props.type}
      schema={props.schema}
      value={props.value}
      onChange={props.onChange}
      errors={props.errors}
      path={['config']}
      options={{ ...FIELD_OPTIONS[props.type], suggestions: props.suggestions }}
    />
  );
}

const schemaEditor: ConfigEditor = {
  title: 'Configuration',
  initial: (schema) => defaultsFor(schema),
  toSend: (schema, value) => pruneEmpty(schema, value),
  render: (props) => <GeneratedFields {...props} />,
};

/** The rule builder over discovered tables, with a dry run: one editor for every SQL dialect. */
const sqlRulesEditor = (dialect: keyof typeof SQL_DIALECT_NOTES): ConfigEditor => ({
  title: 'Rules',
  initial: () => ({ rules: [] }),
  toSend: (_schema, value) => {
    const draft = value as PostgresDraft;
    return {
      ...draft,
      rules: draft.rules.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))),
    };
  },
  render: (props) => (
    <PostgresRulesEditor
      dialect={dialect}
      accountId={props.accountId}
      value={props.value as PostgresDraft}
      onChange={props.onChange}
      errors={props.errors}
    />
  ),
  preview: (props) => <DryRunPanel accountId={props.accountId} config={props.config} onIssues={props.onIssues} />,
});

/**
 * The generated form for a data store's rules, with its dry run worded for what the store
 * holds; `suggest` turns what discovery found (buckets, tables) into values the fields offer.
 */
const storeEditor = (
  wording: DryRunWording,
  suggest?: (tables: DiscoveredTable[]) => Record<string, string[]>,
): ConfigEditor => ({
  ...schemaEditor,
  render: suggest ? (props) => <DiscoveredStoreFields {...props} suggest={suggest} /> : schemaEditor.render,
  title: 'Rules',
  preview: (props) => (
    <DryRunPanel accountId={props.accountId} config={props.config} onIssues={props.onIssues} wording={wording} />
  ),
});

/** The generated form, offering what discovery found at the account's destination (nothing until an account is chosen). */
function DiscoveredStoreFields(
  props: EditorProps & { suggest: (tables: DiscoveredTable[]) => Record<string, string[]> },
) {
  const discovered = useDiscoveredSchema(props.accountId);
  return <GeneratedFields {...props} suggestions={props.suggest(discovered.data ?? [])} />;
}

const names = (values: string[]) => [...new Set(values)].sort();

/** BigQuery's own settings above its rules: the project, where its datasets are, and the byte ceiling. */
const BIGQUERY_FIELDS = ['projectId', 'location', 'maxBytesScanned'];
const bigquerySettings = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  properties: Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([key]) => BIGQUERY_FIELDS.includes(key)),
  ),
  required: (schema.required ?? []).filter((key) => BIGQUERY_FIELDS.includes(key)),
});
const sqlRules = sqlRulesEditor('bigquery');
/** The project and location typed so far, once both are there: discovery reads that region of that project. */
function bigqueryPlace(value: unknown): Record<string, unknown> | undefined {
  const { projectId, location } = (value ?? {}) as { projectId?: unknown; location?: unknown };
  // Only a whole project ID and location: discovery is not asked again for every character typed.
  return typeof projectId === 'string' &&
    /^([a-z0-9.-]+:)?[a-z][a-z0-9-]{4,61}[a-z0-9]$/.test(projectId) &&
    typeof location === 'string' &&
    /^[A-Za-z0-9-]{2,}$/.test(location)
    ? { projectId, location }
    : undefined;
}
const bigqueryEditor: ConfigEditor = {
  ...sqlRules,
  initial: (schema) => ({ ...(defaultsFor(bigquerySettings(schema)) as object), rules: [] }),
  render: (props) => (
    <>
      <SchemaFields
        schema={bigquerySettings(props.schema)}
        value={props.value}
        onChange={props.onChange}
        errors={props.errors}
        path={['config']}
        options={{
          labels: {
            projectId: 'Project ID',
            location: 'Dataset location',
            maxBytesScanned: 'Byte ceiling per statement',
          },
          hints: {
            location: 'Where the datasets are: US, EU, or a region such as europe-west2. Every query job runs there.',
            maxBytesScanned:
              'Most bytes one rule’s statement may read, by BigQuery’s dry run; a rule over it is refused and nothing runs.',
          },
        }}
      />
      <PostgresRulesEditor
        dialect="bigquery"
        accountId={props.accountId}
        place={bigqueryPlace(props.value)}
        value={props.value as PostgresDraft}
        onChange={props.onChange}
        errors={props.errors}
      />
    </>
  ),
};

/** Types with an editor of their own; every other type uses the generated form. */
const CUSTOM_EDITORS: Partial<Record<IntegrationType, ConfigEditor>> = {
  POSTGRES: sqlRulesEditor('postgres'),
  MYSQL: sqlRulesEditor('mysql'),
  SNOWFLAKE: sqlRulesEditor('snowflake'),
  BIGQUERY: bigqueryEditor,
  REDIS: storeEditor({
    explanation:
      'Counts the keys, hash fields and set members each rule would remove for an identifier (SCAN, never KEYS). Nothing is changed.',
    counted: 'Found',
    statements: 'Redis commands',
  }),
  S3: storeEditor(
    {
      explanation:
        'Lists the objects (every version, in a versioned bucket) each rule would erase for an identifier. Nothing is changed.',
      counted: 'Objects',
      statements: 'S3 calls',
    },
    (buckets) => ({ bucket: names(buckets.map((b) => b.table)) }),
  ),
  DYNAMODB: storeEditor(
    {
      explanation:
        'Counts the items each rule would delete for an identifier, by Query (never Scan). Nothing is changed.',
      counted: 'Items',
      statements: 'DynamoDB calls',
    },
    (tables) => ({
      'rules.table': names(tables.map((t) => t.table)),
      'rules.index': names(tables.flatMap((t) => (t.indexes ?? []).map((i) => i.name))),
    }),
  ),
};

export function configEditorFor(type: IntegrationType): ConfigEditor {
  return CUSTOM_EDITORS[type] ?? schemaEditor;
}
