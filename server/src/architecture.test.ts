import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname);
const SHARED = path.resolve(SRC, '../../shared/src');

/** Every non-test module of server/src with the modules it imports (relative and @shared imports, resolved). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'generated') walk(full);
      } else if (/\.tsx?$/.test(entry.name) && !/\.(test|scale|fuzz)\.tsx?$/.test(entry.name)) {
        const info = ts.preProcessFile(fs.readFileSync(full, 'utf8'), true, true);
        const targets = info.importedFiles
          .map((f) => f.fileName)
          .flatMap((spec) =>
            spec.startsWith('.')
              ? [path.resolve(path.dirname(full), spec)]
              : spec.startsWith('@shared/')
                ? [path.join(SHARED, spec.slice(8))]
                : [],
          );
        graph.set(full, targets);
      }
    }
  };
  walk(SRC);
  return graph;
}

/**
 * A connector's stand-in (`integrations/<vendor>/fake.ts`) and the list of them
 * (`integrations/fakes.ts`) sit beside its driver but are test helpers: they count as `test`.
 */
const isFake = (file: string) => /[\\/]integrations[\\/]([^\\/]+[\\/]fake|fakes)(\.ts)?$/.test(file);

/** The top-level folder of server/src a module belongs to (`shared` for shared/src, `test` for the fakes). */
function room(file: string): string {
  if (file.startsWith(SHARED)) return 'shared';
  if (isFake(file)) return 'test';
  return path
    .relative(SRC, file)
    .split(path.sep)[0]!
    .replace(/\.tsx?$/, '');
}

describe('architecture', () => {
  const graph = importGraph();
  const edges = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = room(from);
      const b = room(to);
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }

  it('has no import cycle between the top-level folders of server/src', () => {
    // The graph is really read (a known edge is there).
    expect(edges.get('pipeline')?.has('services')).toBe(true);
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (node: string, trail: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'visiting') {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
        return;
      }
      state.set(node, 'visiting');
      for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
      state.set(node, 'done');
    };
    for (const node of edges.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it('keeps services independent of the pipeline, and nothing outside tests imports the test helpers', () => {
    expect([...(edges.get('services') ?? [])].filter((to) => to === 'pipeline')).toEqual([]);
    const intoTest = [...edges].filter(([from, to]) => from !== 'test' && to.has('test')).map(([from]) => from);
    expect(intoTest).toEqual([]);
    // The fakes are read as test helpers (the rule above covers them): the production registry does not import them.
    expect([...graph.keys()].filter(isFake).length).toBeGreaterThan(1);
    expect(edges.get('test')?.has('integrations')).toBe(true);
  });

  it('writes DeletionRequest and IntegrationRequest rows only in server/src/pipeline', () => {
    const writes =
      /(INSERT INTO|UPDATE|DELETE FROM)\s+"(DeletionRequest|IntegrationRequest)"|\.(deletionRequest|integrationRequest)\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\(/;
    const outside = [...graph.keys()].filter(
      (file) => room(file) !== 'pipeline' && writes.test(fs.readFileSync(file, 'utf8')),
    );
    expect(outside.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('keeps the queue mechanics in server/src/queue, below the queues that use them', () => {
    // The pipeline's store and commands never reach up into the worker; the queue module imports no queue of its own.
    const inside = (file: string, dir: string) => file.startsWith(path.join(SRC, dir) + path.sep);
    const upward = [...graph]
      .filter(([from]) => inside(from, 'pipeline/store') || inside(from, 'pipeline/commands'))
      .flatMap(([from, targets]) =>
        targets.filter((to) => inside(to, 'pipeline/worker')).map(() => path.relative(SRC, from)),
      );
    expect(upward).toEqual([]);
    expect([...(edges.get('queue') ?? [])].filter((to) => ['pipeline', 'callbacks', 'jobs'].includes(to))).toEqual([]);
    // The queues' LISTEN is written once (the PAT cache's invalidation channel is not a queue).
    const queues = ['pipeline', 'callbacks', 'jobs', 'queue'];
    const listens = [...graph.keys()].filter(
      (file) => queues.includes(room(file)) && /\bLISTEN \$\{/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(listens.map((f) => path.relative(SRC, f))).toEqual(['queue/runner.ts']);
  });

  it('writes CallbackDelivery rows only in server/src/callbacks/store', () => {
    const writes =
      /(INSERT INTO|UPDATE|DELETE FROM)\s+"CallbackDelivery"|\.callbackDelivery\.(create|createMany|update|updateMany|upsert)\(/;
    const outside = [...graph.keys()].filter(
      (file) =>
        !file.startsWith(path.join(SRC, 'callbacks', 'store') + path.sep) && writes.test(fs.readFileSync(file, 'utf8')),
    );
    expect(outside.map((f) => path.relative(SRC, f))).toEqual([]);
    // The payload of a request's events is written once.
    const payloads = [...graph.keys()].filter((file) => /'integrationRequests',/.test(fs.readFileSync(file, 'utf8')));
    expect(payloads.map((f) => path.relative(SRC, f))).toEqual(['callbacks/store/events.ts']);
  });
});
