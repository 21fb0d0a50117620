import { useMemo, useState } from 'react';
import {
  chainKey,
  proposeRules,
  referencingTables,
  type ProposedRule,
  type ReferencingTable,
} from '@shared/integrations/foreign-keys';
import { tableKey, type DiscoveredTable, type RuleDraft } from '../../lib/postgres-rules';
import { SelectField, TextField } from '../field';

type Handling = ProposedRule['action'] | 'hash' | 'mask';
type Kept = { schema: string; table: string; reason: string };

const HANDLING_LABEL: Record<Handling, string> = {
  delete: 'Delete the rows',
  set_null: 'Set the key to NULL',
  hash: 'Keyed hash of columns (pick them after)',
  mask: 'Mask columns (pick them after)',
  keep: 'Keep, with a reason',
};

const entryKey = (r: ReferencingTable) => `${tableKey(r)}|${chainKey(r.via)}`;

/**
 * Under a rule: every table that references its table through foreign keys, recursively (a
 * self-reference or a cycle shown once), each key with its ON DELETE behaviour and a proposed
 * handling the person can change, then add as rules matched through the key chain.
 */
export function ForeignKeyPanel(props: {
  rule: RuleDraft;
  ruleNumber: number;
  tables: DiscoveredTable[];
  rules: RuleDraft[];
  kept: Kept[];
  onAdd: (rules: RuleDraft[], kept: Kept[]) => void;
}) {
  const { rule, tables } = props;
  const { schema, table } = rule;
  const proposals = useMemo(
    () => proposeRules(tables, referencingTables(tables, { schema, table })),
    [tables, schema, table],
  );
  const [choices, setChoices] = useState<Record<string, { action: Handling; reason: string }>>({});
  if (proposals.length === 0) return null;

  const handled = (p: ProposedRule) =>
    props.rules.some(
      (r) => tableKey(r) === tableKey(p.referencing) && chainKey(r.via ?? []) === chainKey(p.referencing.via),
    ) || props.kept.some((k) => tableKey(k) === tableKey(p.referencing));
  const choiceOf = (p: ProposedRule) =>
    choices[entryKey(p.referencing)] ?? { action: p.action, reason: p.action === 'keep' ? p.reason : '' };
  const open = proposals.filter((p) => !handled(p));
  const missingReason = open.some((p) => choiceOf(p).action === 'keep' && !choiceOf(p).reason.trim());

  const add = () => {
    const rules: RuleDraft[] = [];
    const kept: Kept[] = [];
    for (const p of open) {
      const { action, reason } = choiceOf(p);
      const { schema, table, via, foreignKey } = p.referencing;
      if (action === 'keep') kept.push({ schema, table, reason: reason.trim() });
      else
        rules.push({
          schema,
          table,
          via,
          identifierColumns: rule.identifierColumns,
          match: rule.match,
          action,
          columns: action === 'set_null' ? foreignKey.columns : [],
        });
    }
    props.onAdd(rules, kept);
  };

  return (
    <section className="card fk-panel" aria-label={`Tables referencing ${tableKey(rule)}`}>
      <h4>
        {proposals.length} foreign key{proposals.length === 1 ? '' : 's'} lead{proposals.length === 1 ? 's' : ''} to{' '}
        {tableKey(rule)}
      </h4>
      <p className="muted small">
        Rules run children first, in one transaction. A key that is ON DELETE RESTRICT or NO ACTION refuses the deletion
        while rows point at it: those tables need a rule.
      </p>
      <ul className="fk-list">
        {proposals.map((p) => {
          const r = p.referencing;
          const choice = choiceOf(p);
          const id = entryKey(r);
          const path = [tableKey(r), ...r.via.map((s) => tableKey(s.references))].join(' → ');
          return (
            <li key={id}>
              <p>
                <strong>{tableKey(r)}</strong> <code>{r.foreignKey.name}</code> ({r.foreignKey.columns.join(', ')} →{' '}
                {tableKey(r.foreignKey.references)}.{r.foreignKey.references.columns.join(', ')}), ON DELETE{' '}
                {r.foreignKey.onDelete}
                {r.cycle ? ' (points back into the graph: not followed further)' : ''}
              </p>
              <p className="muted small">
                Path: {path}. {p.reason}.
              </p>
              {handled(p) ? (
                <p className="small">Already handled by a rule or kept.</p>
              ) : (
                <div className="row wrap">
                  <SelectField
                    label={`Proposed handling of ${tableKey(r)} via ${r.foreignKey.name} (rule ${props.ruleNumber})`}
                    value={choice.action}
                    onChange={(e) =>
                      setChoices({ ...choices, [id]: { ...choice, action: e.target.value as Handling } })
                    }
                  >
                    {(Object.keys(HANDLING_LABEL) as Handling[]).map((h) => (
                      <option key={h} value={h}>
                        {HANDLING_LABEL[h]}
                      </option>
                    ))}
                  </SelectField>
                  {choice.action === 'keep' ? (
                    <TextField
                      label={`Why ${tableKey(r)} is kept`}
                      value={choice.reason}
                      maxLength={500}
                      error={choice.reason.trim() ? undefined : 'Write down why the rows are kept'}
                      onChange={(e) => setChoices({ ...choices, [id]: { ...choice, reason: e.target.value } })}
                    />
                  ) : null}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {open.length > 0 ? (
        <button type="button" className="button" onClick={add} disabled={missingReason}>
          Add {open.length} rule{open.length === 1 ? '' : 's'} for the referencing tables
        </button>
      ) : null}
    </section>
  );
}

/** Referencing tables left as they are on purpose, each with its reason. */
export function KeptTables(props: { kept: Kept[]; errors: Record<string, string>; onChange: (kept: Kept[]) => void }) {
  if (props.kept.length === 0) return null;
  return (
    <section className="card" aria-label="Tables kept on purpose">
      <h4>Tables kept on purpose</h4>
      <ul>
        {props.kept.map((k, i) => (
          <li key={`${tableKey(k)}-${i}`} className="row space-between wrap">
            <span>
              <strong>{tableKey(k)}</strong>: {k.reason}
              {props.errors[`config.keep.${i}.reason`] ? (
                <span className="field-error" role="alert">
                  {' '}
                  {props.errors[`config.keep.${i}.reason`]}
                </span>
              ) : null}
            </span>
            <button
              type="button"
              className="button button-small"
              aria-label={`Stop keeping ${tableKey(k)}`}
              onClick={() => props.onChange(props.kept.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
