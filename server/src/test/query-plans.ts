import pg from 'pg';

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/**
 * What a statement read, by `EXPLAIN ANALYZE`: the rows every scan of its plan returned or
 * filtered out (a bitmap's index pass is counted in its heap scan), whether one scan read the
 * whole table, and the plan as JSON for the failure message.
 */
export async function rowsRead(
  client: pg.Client,
  sql: string,
  values: unknown[] = [],
): Promise<{ read: number; seqScan: boolean; plan: string }> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
    values,
  );
  let read = 0;
  let seqScan = false;
  const visit = (node: PlanNode) => {
    if (node['Node Type'].includes('Scan') && node['Node Type'] !== 'Bitmap Index Scan') {
      read +=
        (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        node['Actual Loops'];
      seqScan ||= node['Node Type'] === 'Seq Scan';
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  const plan = rows[0]!['QUERY PLAN'][0].Plan;
  visit(plan);
  return { read, seqScan, plan: JSON.stringify(plan) };
}

/**
 * A client whose tables of these names are empty copies of the service's, with their indexes
 * (from the migrations), in a schema of their own searched first: a history can be filled
 * there and read by the service's own statements without touching the service's rows.
 */
export async function tableCopies(url: string, tables: string[]): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA history; SET search_path TO history, public`);
  for (const table of tables)
    await client.query(`CREATE TABLE "${table}" (LIKE public."${table}" INCLUDING DEFAULTS INCLUDING INDEXES)`);
  return client;
}

/**
 * `rowsRead` under the statement's generic plan, as the service's prepared statements run it
 * with `plan_cache_mode = force_generic_plan` (planned once for any parameters, not for these).
 */
export async function genericRowsRead(
  client: pg.Client,
  sql: string,
  values: unknown[],
): Promise<{ read: number; seqScan: boolean; plan: string }> {
  await client.query(`SET plan_cache_mode = force_generic_plan`);
  await client.query(`DEALLOCATE ALL`);
  await client.query(`PREPARE generic_plan AS ${sql}`);
  return rowsRead(client, `EXECUTE generic_plan(${values.map((v) => client.escapeLiteral(String(v))).join(', ')})`);
}
