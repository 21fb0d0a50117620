import type { ForeignKey } from '@shared/integrations/foreign-keys';
import { PermanentError, type ConfigIssue, type DiscoveredTable } from '../types';
import { columnsOf, type SqlRule } from './rules';

/** A referencing table left as it is on purpose, with the reason (configuration `keep`). */
export interface KeptTable {
  schema: string;
  table: string;
  reason: string;
}

type TableName = { schema: string; table: string };

const keyOf = (t: TableName) => `${t.schema}.${t.table}`;

/** Each table's referencing tables (`schema.table`), from its foreign keys or, where only that was read, `referencedBy`. */
function referrersOf(tables: DiscoveredTable[]): Map<string, Set<string>> {
  const referrers = new Map(tables.map((t) => [keyOf(t), new Set(t.referencedBy ?? [])]));
  for (const child of tables)
    for (const key of child.foreignKeys ?? []) referrers.get(keyOf(key.references))?.add(keyOf(child));
  return referrers;
}

/**
 * The rules in the order they run: a rule on a table after the rules on tables that reference
 * it (order_items, then orders, then users), and of the rules on one table, those reached
 * through longer key chains first (a self-reference's link is cleared before its row goes).
 * Otherwise rules keep the order they were given in; a cycle takes the first remaining rule.
 */
export function foreignKeyOrder<T extends { rule: SqlRule }>(rules: T[], tables: DiscoveredTable[]): T[] {
  const referrers = referrersOf(tables);
  const keys = rules.map(({ rule }) => keyOf(rule));
  const depth = (i: number) => rules[i]!.rule.via?.length ?? 0;
  const placed: T[] = [];
  const done = new Set<number>();
  while (placed.length < rules.length) {
    const remaining = rules.map((_, i) => i).filter((i) => !done.has(i));
    const free = remaining.filter(
      (i) => !remaining.some((j) => j !== i && keys[j] !== keys[i] && referrers.get(keys[i]!)?.has(keys[j]!)),
    );
    const candidates = free.length > 0 ? free : remaining;
    const pick = candidates.reduce((best, i) => (depth(i) > depth(best) ? i : best), candidates[0]!);
    done.add(pick);
    placed.push(rules[pick]!);
  }
  return placed;
}

/** Problems with a rule's key chain: every table and column it names must exist, as many columns on each side. */
export function keyChainIssues(rule: SqlRule, tables: DiscoveredTable[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  let from: TableName = rule;
  (rule.via ?? []).forEach((step, i) => {
    const fromTable = tables.find((t) => keyOf(t) === keyOf(from));
    const toTable = tables.find((t) => keyOf(t) === keyOf(step.references));
    if (!toTable) {
      issues.push({
        path: ['via', i, 'references', 'table'],
        message: `Table ${keyOf(step.references)} does not exist or is not visible to this user`,
      });
      return;
    }
    for (const c of step.columns)
      if (!fromTable?.columns.some((col) => col.name === c))
        issues.push({ path: ['via', i, 'columns'], message: `Column ${c} does not exist in ${keyOf(from)}` });
    for (const c of step.references.columns)
      if (!toTable.columns.some((col) => col.name === c))
        issues.push({
          path: ['via', i, 'references', 'columns'],
          message: `Column ${c} does not exist in ${keyOf(step.references)}`,
        });
    from = step.references;
  });
  return issues;
}

const BLOCKING = new Set<ForeignKey['onDelete']>(['RESTRICT', 'NO ACTION']);

/**
 * Rules whose deletions a foreign key would refuse: a table whose rows a rule deletes (or the
 * database deletes by ON DELETE CASCADE from it) is referenced by a key that is ON DELETE
 * RESTRICT or NO ACTION, and no rule deletes the referencing rows or sets the key's columns to
 * NULL first. For a self-reference, only a rule reached through that key counts (deleting a
 * user does nothing about the other users who point at it).
 */
export function blockingForeignKeyIssues(
  rules: SqlRule[],
  tables: DiscoveredTable[],
  kept: KeptTable[] = [],
): ConfigIssue[] {
  // Tables whose rows go, each with the rule that starts it.
  const deleted = new Map<string, number>();
  rules.forEach((rule, i) => {
    if (rule.action === 'delete' && !deleted.has(keyOf(rule))) deleted.set(keyOf(rule), i);
  });
  const keysInto = (parent: string) =>
    tables.flatMap((child) =>
      (child.foreignKeys ?? []).filter((k) => keyOf(k.references) === parent).map((key) => ({ child, key })),
    );
  const queue = [...deleted.keys()];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const { child, key } of keysInto(parent))
      if (key.onDelete === 'CASCADE' && !deleted.has(keyOf(child))) {
        deleted.set(keyOf(child), deleted.get(parent)!);
        queue.push(keyOf(child));
      }
  }
  const covers = (rule: SqlRule, child: TableName, key: ForeignKey, selfReference: boolean) => {
    if (keyOf(rule) !== keyOf(child)) return false;
    const throughKey =
      rule.via?.[0] !== undefined &&
      keyOf(rule.via[0].references) === keyOf(key.references) &&
      rule.via[0].columns.join() === key.columns.join();
    if (selfReference && !throughKey) return false;
    if (rule.action === 'delete') return true;
    return rule.action === 'set_null' && rule.columns.some((c) => key.columns.includes(c));
  };
  const issues: ConfigIssue[] = [];
  for (const [parent, ruleIndex] of deleted)
    for (const { child, key } of keysInto(parent)) {
      if (!BLOCKING.has(key.onDelete)) continue;
      const selfReference = keyOf(child) === parent;
      if (rules.some((rule) => covers(rule, child, key, selfReference))) continue;
      const columns = key.columns.join(', ');
      const keptNote = kept.some((k) => keyOf(k) === keyOf(child))
        ? ` (${keyOf(child)} is marked as kept, but the key refuses the deletion while its rows point at the row)`
        : '';
      issues.push({
        path: ['rules', ruleIndex, 'table'],
        message:
          `Foreign key ${key.name} (${keyOf(child)}.${columns} → ${parent}, ON DELETE ${key.onDelete}) ` +
          `blocks deleting from ${parent}: add a rule for ${keyOf(child)} that deletes its rows or sets ${columns} to NULL${keptNote}`,
      });
    }
  return issues;
}

/**
 * The rules with their tables' columns, in the order they run (`foreignKeyOrder`). A table gone
 * since the rules were saved is a PermanentError naming who can no longer see it (`grantee`:
 * "this user", "this role", "this account").
 */
export function resolveRules(rules: SqlRule[], tables: DiscoveredTable[], grantee: string) {
  const resolved = rules.map((rule) => {
    const columns = columnsOf(tables, rule);
    if (!columns)
      throw new PermanentError(`Table ${rule.schema}.${rule.table} no longer exists or is not visible to ${grantee}`);
    return { rule, columns };
  });
  return foreignKeyOrder(resolved, tables);
}
