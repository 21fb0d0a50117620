import { useQuery } from '@tanstack/react-query';
import {
  ACTION_LABEL,
  describeRule,
  eligibleColumns,
  moveItem,
  newRule,
  normalizeRule,
  softDeleteColumns,
  tableKey,
  type DiscoveredTable,
  type PostgresDraft,
  type RuleDraft,
} from '../../lib/postgres-rules';
import { useTRPCClient } from '../../trpc';
import { ColumnChecklist } from './column-checklist';
import { ForeignKeyPanel, KeptTables } from './foreign-key-panel';
import { SelectField, TextField } from '../field';
import { CheckboxField } from '../schema-form/input-fields';
import { ErrorState, FormError, Loading } from '../states';

const ACTIONS = Object.keys(ACTION_LABEL) as RuleDraft['action'][];

/** Tables and columns (buckets, key-value tables) the account can see: discovery is a call to the destination. */
export function useDiscoveredSchema(accountId: string | null, place?: Record<string, unknown>) {
  const client = useTRPCClient();
  return useQuery({
    queryKey: ['discovered-schema', accountId, place ?? null],
    queryFn: () =>
      client.integrations.discoverSchema.mutate({ accountId: accountId!, config: place }) as Promise<DiscoveredTable[]>,
    enabled: Boolean(accountId),
    staleTime: 60_000,
    retry: false,
  });
}

/** What the rule builder says about the order of rules and identifier matching, by SQL dialect. */
export const SQL_DIALECT_NOTES = {
  postgres:
    'Rules run in one transaction; tables that reference others (such as orders) go before the tables they reference (such as users), found from the foreign keys.',
  mysql:
    'Rules run in one transaction; tables that reference others (such as orders) go before the tables they reference (such as users), found from the foreign keys. Identifiers match exactly: case, accents and trailing spaces count.',
  snowflake:
    'Each rule is one statement through the SQL API, committed on its own (Snowflake does not enforce foreign keys). Identifiers match exactly. Deleted and overwritten values stay recoverable for the table’s Time Travel period plus 7 days of Fail-safe; the outcome states the period.',
  bigquery:
    'Each rule runs as one query job, in the order written, after BigQuery’s dry run shows it reads no more than the byte ceiling. Identifiers match exactly, whatever a column’s collation. Deleted rows stay recoverable for the dataset’s time travel window plus 7 days of fail-safe.',
} as const;

/**
 * The rule builder of SQL databases (PostgreSQL, MySQL/MariaDB): per rule a table, identifier
 * columns matched any/all, and an action with the columns it needs; rules run in one transaction.
 */
export function PostgresRulesEditor(props: {
  dialect?: keyof typeof SQL_DIALECT_NOTES;
  accountId: string | null;
  /** Where a warehouse's discovery looks (BigQuery's project and location); absent: where the account itself says. */
  place?: Record<string, unknown>;
  value: PostgresDraft;
  onChange: (next: PostgresDraft) => void;
  errors: Record<string, string>;
}) {
  const discovered = useDiscoveredSchema(props.accountId, props.place);
  const tables = discovered.data ?? [];
  const rules = props.value.rules;
  const setRules = (next: RuleDraft[]) => props.onChange({ ...props.value, rules: next });
  const windowOn = Boolean(props.value.maintenanceWindow);

  if (!props.accountId)
    return (
      <p className="callout small">
        Choose or create the database account first: its tables are read to build the rules.
      </p>
    );
  if (discovered.isPending) return <Loading label="Reading the database schema…" />;
  if (discovered.isError)
    return (
      <ErrorState
        title="The database schema could not be read"
        error={discovered.error}
        onRetry={() => void discovered.refetch()}
      />
    );
  return (
    <div className="rule-builder">
      <div className="row space-between wrap">
        <p className="muted small">
          {tables.length} table{tables.length === 1 ? '' : 's'} found. {SQL_DIALECT_NOTES[props.dialect ?? 'postgres']}
        </p>
        <button
          type="button"
          className="button button-small"
          onClick={() => void discovered.refetch()}
          disabled={discovered.isFetching}
        >
          {discovered.isFetching ? 'Reading…' : 'Reload schema'}
        </button>
      </div>
      {props.errors['config.rules'] ? (
        <p className="field-error" role="alert">
          {props.errors['config.rules']}
        </p>
      ) : null}
      <ol className="rules">
        {rules.map((rule, index) => (
          <li key={index}>
            <RuleEditor
              index={index}
              count={rules.length}
              rule={rule}
              tables={tables}
              errors={props.errors}
              onChange={(next) => setRules(rules.map((r, i) => (i === index ? next : r)))}
              onMove={(to) => setRules(moveItem(rules, index, to))}
              onRemove={() => setRules(rules.filter((_, i) => i !== index))}
            />
            {rule.table && !rule.via?.length ? (
              <ForeignKeyPanel
                rule={rule}
                ruleNumber={index + 1}
                tables={tables}
                rules={rules}
                kept={props.value.keep ?? []}
                onAdd={(added, kept) =>
                  props.onChange({
                    ...props.value,
                    rules: [...rules, ...added],
                    keep: [...(props.value.keep ?? []), ...kept],
                  })
                }
              />
            ) : null}
          </li>
        ))}
      </ol>
      <KeptTables
        kept={props.value.keep ?? []}
        errors={props.errors}
        onChange={(keep) => props.onChange({ ...props.value, keep: keep.length ? keep : undefined })}
      />
      <button
        type="button"
        className="button"
        onClick={() =>
          setRules([...rules, newRule(tables.find((t) => !rules.some((r) => tableKey(r) === tableKey(t))))])
        }
        disabled={tables.length === 0}
      >
        Add rule
      </button>

      <fieldset className="schema-fieldset">
        <legend>Maintenance window</legend>
        <CheckboxField
          label="Only run deletions in a daily window (UTC)"
          checked={windowOn}
          hint="Outside the window requests wait as PENDING."
          onChange={(on) =>
            props.onChange({ ...props.value, maintenanceWindow: on ? { startHourUtc: 2, endHourUtc: 5 } : undefined })
          }
        />
        {windowOn ? (
          <div className="row wrap">
            <HourField
              label="From hour (UTC)"
              value={props.value.maintenanceWindow!.startHourUtc}
              max={23}
              error={props.errors['config.maintenanceWindow.startHourUtc']}
              onChange={(h) =>
                props.onChange({
                  ...props.value,
                  maintenanceWindow: { ...props.value.maintenanceWindow!, startHourUtc: h },
                })
              }
            />
            <HourField
              label="Until hour (UTC)"
              value={props.value.maintenanceWindow!.endHourUtc}
              max={24}
              error={props.errors['config.maintenanceWindow.endHourUtc']}
              onChange={(h) =>
                props.onChange({
                  ...props.value,
                  maintenanceWindow: { ...props.value.maintenanceWindow!, endHourUtc: h },
                })
              }
            />
          </div>
        ) : null}
        <FormError message={props.errors['config.maintenanceWindow']} />
      </fieldset>
      <TextField
        label="Statement timeout (ms)"
        type="number"
        inputMode="numeric"
        min={100}
        max={600000}
        placeholder="30000"
        value={props.value.statementTimeoutMs === undefined ? '' : String(props.value.statementTimeoutMs)}
        error={props.errors['config.statementTimeoutMs']}
        onChange={(e) =>
          props.onChange({
            ...props.value,
            statementTimeoutMs: e.target.value === '' ? undefined : Number(e.target.value),
          })
        }
      />
    </div>
  );
}

function HourField(props: {
  label: string;
  value: number;
  max: number;
  error?: string;
  onChange: (hour: number) => void;
}) {
  return (
    <TextField
      label={props.label}
      type="number"
      inputMode="numeric"
      min={0}
      max={props.max}
      value={String(props.value)}
      error={props.error}
      onChange={(e) => props.onChange(Number(e.target.value))}
    />
  );
}

function RuleEditor(props: {
  index: number;
  count: number;
  rule: RuleDraft;
  tables: DiscoveredTable[];
  errors: Record<string, string>;
  onChange: (rule: RuleDraft) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const { rule, index } = props;
  const n = index + 1;
  const err = (field: string) => props.errors[`config.rules.${index}.${field}`];
  const table = props.tables.find((t) => tableKey(t) === tableKey(rule));
  const columns = table?.columns ?? [];
  const last = rule.via?.at(-1)?.references;
  // Through a key chain, the identifier is compared on the chain's last table.
  const identifierTable = last ? props.tables.find((t) => tableKey(t) === tableKey(last)) : table;
  const update = (patch: Partial<RuleDraft>) =>
    props.onChange(
      normalizeRule(
        { ...rule, ...patch },
        props.tables.find((t) => tableKey(t) === tableKey({ ...rule, ...patch })),
      ),
    );
  const eligible = eligibleColumns(rule.action, columns);
  return (
    <section className="card rule" aria-label={`Rule ${n}`}>
      <div className="row space-between wrap">
        <h3>Rule {n}</h3>
        <div className="row">
          <button
            type="button"
            className="button button-small"
            disabled={index === 0}
            onClick={() => props.onMove(index - 1)}
            aria-label={`Move rule ${n} up`}
          >
            ↑ Up
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={index === props.count - 1}
            onClick={() => props.onMove(index + 1)}
            aria-label={`Move rule ${n} down`}
          >
            ↓ Down
          </button>
          <button
            type="button"
            className="button button-small button-danger-outline"
            onClick={props.onRemove}
            aria-label={`Remove rule ${n}`}
          >
            Remove
          </button>
        </div>
      </div>
      <p className="muted small rule-summary">{describeRule(rule)}</p>
      <div className="rule-grid">
        <SelectField
          label={`Table (rule ${n})`}
          value={rule.table ? tableKey(rule) : ''}
          error={err('table') ?? err('schema')}
          onChange={(e) => {
            const picked = props.tables.find((t) => tableKey(t) === e.target.value);
            if (picked) update({ schema: picked.schema, table: picked.table, via: undefined });
          }}
        >
          <option value="" disabled>
            Choose a table
          </option>
          {rule.table && !table ? <option value={tableKey(rule)}>{tableKey(rule)} (not found)</option> : null}
          {props.tables.map((t) => (
            <option key={tableKey(t)} value={tableKey(t)}>
              {tableKey(t)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={`Action (rule ${n})`}
          value={rule.action}
          error={err('action')}
          onChange={(e) => update({ action: e.target.value as RuleDraft['action'] })}
        >
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {ACTION_LABEL[a]}
            </option>
          ))}
        </SelectField>
      </div>
      <ColumnChecklist
        legend={`Identifier columns (rule ${n})`}
        hint={
          last
            ? `Compared with the request's identifier on ${tableKey(last)}, reached through the foreign keys.`
            : "Compared with the request's identifier."
        }
        columns={identifierTable?.columns ?? []}
        selected={rule.identifierColumns}
        error={err('identifierColumns')}
        onChange={(identifierColumns) => update({ identifierColumns })}
      />
      {rule.identifierColumns.length > 1 ? (
        <SelectField
          label={`Match (rule ${n})`}
          value={rule.match}
          onChange={(e) => update({ match: e.target.value as 'any' | 'all' })}
        >
          <option value="any">Any of these columns equals the identifier</option>
          <option value="all">All of these columns equal the identifier</option>
        </SelectField>
      ) : null}
      {rule.action === 'set_null' || rule.action === 'hash' || rule.action === 'mask' ? (
        <ColumnChecklist
          legend={`Columns to change (rule ${n})`}
          hint={
            rule.action === 'set_null'
              ? 'Only nullable columns can be set to NULL.'
              : 'Only text columns can be hashed or masked.'
          }
          columns={eligible}
          selected={rule.columns}
          error={err('columns')}
          onChange={(picked) => update({ columns: picked })}
        />
      ) : null}
      {rule.action === 'soft_delete' ? (
        <SelectField
          label={`Flag or timestamp column (rule ${n})`}
          value={rule.softDeleteColumn ?? ''}
          error={err('softDeleteColumn')}
          onChange={(e) => update({ softDeleteColumn: e.target.value || undefined })}
        >
          <option value="">Choose a column</option>
          {softDeleteColumns(columns).map((c) => (
            <option key={c.name} value={c.name}>
              {c.name} ({c.dataType})
            </option>
          ))}
        </SelectField>
      ) : null}
    </section>
  );
}
