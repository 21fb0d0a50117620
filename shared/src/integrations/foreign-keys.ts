/**
 * Foreign keys as schema discovery reports them, the graph of tables that reference a table,
 * and the rules proposed for them: shared by the server (the rule builder's procedure, the
 * save-time check) and the dashboard's rule builder. Plain values, no zod.
 */
import type { KeyStep } from './postgres';

/** What the database does to referencing rows when a referenced row is deleted. */
export type OnDelete = 'CASCADE' | 'SET NULL' | 'SET DEFAULT' | 'RESTRICT' | 'NO ACTION';

/** A foreign key of a (child) table: its `columns` hold values of `references.columns`. */
export interface ForeignKey {
  name: string;
  columns: string[];
  references: { schema: string; table: string; columns: string[] };
  onDelete: OnDelete;
}

interface GraphTable {
  schema: string;
  table: string;
  columns: { name: string; nullable: boolean }[];
  foreignKeys?: ForeignKey[];
}

type TableName = { schema: string; table: string };

const same = (a: TableName, b: TableName) => a.schema === b.schema && a.table === b.table;

/** A table that references the chosen table, directly or through other tables. */
export interface ReferencingTable {
  schema: string;
  table: string;
  /** The key from this table to the table it references on the way to the chosen one. */
  foreignKey: ForeignKey;
  /** Keys from this table to the chosen table: a rule's `via`. */
  via: KeyStep[];
  /** The key leads back to a table already in the graph (a self-reference or a cycle): not followed further. */
  cycle: boolean;
}

/** What the rule builder proposes for a referencing table. */
export interface ProposedRule {
  referencing: ReferencingTable;
  action: 'delete' | 'set_null' | 'keep';
  /** set_null: the key's columns. */
  columns: string[];
  reason: string;
}

const stepOf = (key: ForeignKey): KeyStep => ({
  foreignKey: key.name,
  columns: key.columns,
  references: { ...key.references },
});

/**
 * Every table that references `root`, recursively, breadth first (the shortest key chain
 * first). Each key is listed once; a key to a table already reached (a self-reference, a
 * cycle) is listed but not followed, so the walk ends on any schema.
 */
export function referencingTables(tables: GraphTable[], root: TableName, maxDepth = 6): ReferencingTable[] {
  const found: ReferencingTable[] = [];
  const reached: TableName[] = [root];
  let frontier: { table: TableName; via: KeyStep[] }[] = [{ table: root, via: [] }];
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const parent of frontier) {
      if (parent.via.length >= maxDepth) continue;
      for (const child of tables)
        for (const key of child.foreignKeys ?? []) {
          if (!same(key.references, parent.table)) continue;
          const cycle = reached.some((t) => same(t, child));
          const via = [stepOf(key), ...parent.via];
          found.push({ schema: child.schema, table: child.table, foreignKey: key, via, cycle });
          if (!cycle) {
            reached.push({ schema: child.schema, table: child.table });
            next.push({ table: child, via });
          }
        }
    }
    frontier = next;
  }
  return found;
}

/**
 * A rule per referencing table, assuming the chosen table's rows are deleted: rows pointing at
 * another row of a deleted table lose the link when the key's columns may be NULL (a
 * self-reference such as `referred_by`, a key declared ON DELETE SET NULL), and are deleted
 * otherwise; tables below a row that stays need nothing.
 */
export function proposeRules(tables: GraphTable[], graph: ReferencingTable[]): ProposedRule[] {
  const proposals: ProposedRule[] = [];
  const deleted = (via: KeyStep[]) =>
    via.length === 1 ||
    proposals.some((p) => p.action === 'delete' && chainKey(p.referencing.via) === chainKey(via.slice(1)));
  for (const referencing of graph) {
    const key = referencing.foreignKey;
    const columns = tables.find((t) => same(t, referencing))?.columns ?? [];
    const nullable = key.columns.every((c) => columns.find((col) => col.name === c)?.nullable);
    let proposal: ProposedRule;
    if (!deleted(referencing.via))
      proposal = {
        referencing,
        action: 'keep',
        columns: [],
        reason: 'The row it references is kept, so nothing here points at a deleted row',
      };
    else if (nullable && (referencing.cycle || key.onDelete === 'SET NULL'))
      proposal = {
        referencing,
        action: 'set_null',
        columns: key.columns,
        reason: referencing.cycle
          ? 'Points at another row of a table whose rows are deleted: the link is cleared, the row stays'
          : 'The key is ON DELETE SET NULL: the link is cleared, counted and verified',
      };
    else
      proposal = {
        referencing,
        action: 'delete',
        columns: [],
        reason:
          key.onDelete === 'CASCADE'
            ? 'The key is ON DELETE CASCADE: the rows are deleted explicitly, so they are counted and verified'
            : `The key is ON DELETE ${key.onDelete}: its rows must go first or the deletion is refused`,
      };
    proposals.push(proposal);
  }
  return proposals;
}

/** A key chain written as one string, to compare chains. */
export const chainKey = (via: KeyStep[]) =>
  via.map((s) => `${s.references.schema}.${s.references.table}(${s.columns.join(',')})`).join('>');
