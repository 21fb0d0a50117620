import './charts.css';
import { useEffect, useRef, useState } from 'react';
import { niceScale, stackBars } from '../../lib/chart';

/** The element's width in CSS pixels, followed as it changes (phone rotation, sidebar). */
function useWidth<E extends HTMLElement>(fallback: number) {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.round(entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

interface Props<K extends string> {
  rows: { label: string; values: Record<K, number> }[];
  keys: readonly K[];
  colors: Record<K, string>;
  labels: Record<K, string>;
  /** Spoken summary of the whole chart. */
  summary: string;
  formatLabel?: (label: string) => string;
}

const HEIGHT = 180;
const AXIS = 32;
const BOTTOM = 22;
/** Room above the plot so the top tick label is not cut off. */
const TOP = 8;

/** Bars per row (day) stacked by key (status), drawn in SVG; each bar has a tooltip. */
export function StackedBarChart<K extends string>({
  rows,
  keys,
  colors,
  labels,
  summary,
  formatLabel = (l) => l,
}: Props<K>) {
  const max = Math.max(0, ...rows.map((r) => keys.reduce((sum, k) => sum + r.values[k], 0)));
  const scale = niceScale(max);
  const bars = stackBars(rows, keys, HEIGHT, scale.max);
  // Drawn at the width it is shown at (1 unit = 1 CSS pixel), so axis labels keep their
  // size on a phone instead of shrinking with the picture; fewer day labels when narrow.
  const { ref, width: measured } = useWidth<HTMLElement>(640);
  const width = Math.max(240, measured);
  const slot = (width - AXIS) / Math.max(1, rows.length);
  const barWidth = Math.max(3, Math.min(28, slot * 0.7));
  const labelEvery = Math.ceil(rows.length / Math.max(2, Math.floor((width - AXIS) / 64)));
  return (
    <figure className="chart" ref={ref}>
      <svg
        viewBox={`0 -${TOP} ${width} ${HEIGHT + BOTTOM + TOP}`}
        role="img"
        aria-label={summary}
        className="chart-svg"
      >
        {scale.ticks.map((tick) => {
          const y = HEIGHT - (tick / scale.max) * HEIGHT;
          return (
            <g key={tick}>
              <line x1={AXIS} x2={width} y1={y} y2={y} className="chart-grid" />
              <text x={AXIS - 6} y={y + 4} textAnchor="end" className="chart-tick">
                {tick}
              </text>
            </g>
          );
        })}
        {bars.map((bar, i) => {
          const x = AXIS + i * slot + (slot - barWidth) / 2;
          const tooltip = `${formatLabel(bar.label)}: ${bar.total} request${bar.total === 1 ? '' : 's'}${bar.segments
            .map((s) => `\n${labels[s.key]}: ${s.value}`)
            .join('')}`;
          return (
            <g key={bar.label}>
              <title>{tooltip}</title>
              <rect x={AXIS + i * slot} y={0} width={slot} height={HEIGHT} fill="transparent" />
              {bar.segments.map((s) => (
                <rect key={s.key} x={x} y={s.y} width={barWidth} height={Math.max(0, s.height)} fill={colors[s.key]} />
              ))}
              {i % labelEvery === 0 ? (
                <text x={x + barWidth / 2} y={HEIGHT + 15} textAnchor="middle" className="chart-tick">
                  {formatLabel(bar.label)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        {keys.map((k) => (
          <span key={k} className="legend-item">
            <span className="legend-swatch" style={{ background: colors[k] }} aria-hidden="true" />
            {labels[k]}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
