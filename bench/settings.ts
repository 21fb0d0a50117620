/** How hard and how long the bench pushes; `--smoke` shrinks everything to a seconds-long check. */
export interface BenchSettings {
  smoke: boolean;
  connections: number;
  /** Each comparison alternates its sides for this many rounds. */
  rounds: number;
  secondsPerRound: number;
  listSecondsPerRound: number;
  listRequests: number;
  pipelineRequests: number;
  /** Requests through each side before the measured ones (their processes' code compiled, as a service runs). */
  pipelineWarmUp: number;
  /** Deletion requests of the storage scenario, each to three webhooks (BENCH_STORAGE_REQUESTS). */
  storageRequests: number;
  /** Worker process counts the pipeline runs with (BENCH_PIPELINE_WORKERS, default 1,4). */
  pipelineWorkers: number[];
  /** Requests per case of the lookups scenario, each timed alone (BENCH_LOOKUP_REQUESTS). */
  lookupRequests: number;
  /** Deletion requests of the backlog scenario, imported by CSV (BENCH_BACKLOG_REQUESTS, default 20,000). */
  backlogRequests: number;
  /** WORKER_CONCURRENCY of the backlog scenario's worker process (BENCH_BACKLOG_CONCURRENCY, default 256). */
  backlogConcurrency: number;
  scenarios: Set<string>;
}

export function readSettings(argv: string[]): BenchSettings {
  const smoke = argv.includes('--smoke');
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  return {
    smoke,
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
    rounds: smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3),
    secondsPerRound: smoke ? 1 : Number(process.env.BENCH_SECONDS ?? 3),
    listSecondsPerRound: smoke ? 1 : Number(process.env.BENCH_LIST_SECONDS ?? 1.5),
    listRequests: smoke ? 2_000 : 100_000,
    pipelineRequests: smoke ? 100 : Number(process.env.BENCH_PIPELINE_REQUESTS ?? 2_000),
    pipelineWarmUp: smoke ? 0 : Number(process.env.BENCH_PIPELINE_WARMUP ?? 4_000),
    storageRequests: smoke ? 30 : Number(process.env.BENCH_STORAGE_REQUESTS ?? 1_000),
    pipelineWorkers: (process.env.BENCH_PIPELINE_WORKERS ?? '1,4').split(',').map(Number),
    lookupRequests: smoke ? 10 : Number(process.env.BENCH_LOOKUP_REQUESTS ?? 200),
    backlogRequests: Number(process.env.BENCH_BACKLOG_REQUESTS ?? (smoke ? 100 : 20_000)),
    backlogConcurrency: Number(process.env.BENCH_BACKLOG_CONCURRENCY ?? 256),
    scenarios: new Set((only ?? 'create,list,pipeline,lookups,dashboard,export,storage,backlog').split(',')),
  };
}
