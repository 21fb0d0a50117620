/**
 * A small Prometheus registry (text exposition format 0.0.4): counters and histograms with
 * labels, and gauges read from a callback at scrape time. Enough for this service without
 * a dependency; every series lives in memory for the life of the process.
 */

type Labels = Record<string, string>;

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function labelText(names: readonly string[], values: readonly string[], extra = ''): string {
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

interface Metric {
  render(): string | Promise<string>;
}

export class Counter<L extends string = string> implements Metric {
  private readonly series = new Map<string, { values: string[]; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
  ) {}

  inc(labels: Record<L, string>, by = 1): void {
    const values = this.labelNames.map((n) => labels[n]);
    const key = values.join('\u0000');
    const entry = this.series.get(key);
    if (entry) entry.count += by;
    else this.series.set(key, { values, count: by });
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { values, count } of this.series.values())
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${count}`);
    return lines.join('\n');
  }
}

export class Histogram<L extends string = string> implements Metric {
  private readonly series = new Map<string, { values: string[]; buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    readonly bounds: readonly number[],
  ) {}

  observe(labels: Record<L, string>, value: number): void {
    const values = this.labelNames.map((n) => labels[n]);
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      entry = { values, buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) entry.buckets[i]!++;
    entry.sum += value;
    entry.count++;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { values, buckets, sum, count } of this.series.values()) {
      this.bounds.forEach((bound, i) =>
        lines.push(`${this.name}_bucket${labelText(this.labelNames, values, `le="${bound}"`)} ${buckets[i]}`),
      );
      lines.push(`${this.name}_bucket${labelText(this.labelNames, values, 'le="+Inf"')} ${count}`);
      lines.push(`${this.name}_sum${labelText(this.labelNames, values)} ${sum}`);
      lines.push(`${this.name}_count${labelText(this.labelNames, values)} ${count}`);
    }
    return lines.join('\n');
  }
}

/** A gauge whose samples are read when scraped (e.g. queue depth from the database). */
export class CallbackGauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => Promise<{ labels: Labels; value: number }[]> | { labels: Labels; value: number }[],
  ) {}

  async render(): Promise<string> {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const { labels, value } of await this.read())
      lines.push(`${this.name}${labelText(Object.keys(labels), Object.values(labels))} ${value}`);
    return lines.join('\n');
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];

  register<M extends Metric>(metric: M): M {
    this.metrics.push(metric);
    return metric;
  }

  /** Removes a callback gauge (its data source is closing). */
  unregister(metric: Metric): void {
    const i = this.metrics.indexOf(metric);
    if (i >= 0) this.metrics.splice(i, 1);
  }

  async render(): Promise<string> {
    const parts = await Promise.all(
      this.metrics.map(async (m) => {
        try {
          return await m.render();
        } catch {
          // One failing source (the database is down) must not hide the other metrics.
          return '';
        }
      }),
    );
    return parts.filter(Boolean).join('\n') + '\n';
  }
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
