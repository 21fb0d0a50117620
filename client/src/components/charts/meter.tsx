/** A horizontal bar of `fraction` (0..1) with a visible value, for per-row comparisons. */
export function Meter({
  fraction,
  color,
  label,
  valueText,
}: {
  fraction: number;
  color: string;
  label: string;
  valueText: string;
}) {
  const pct = Math.max(0, Math.min(1, fraction)) * 100;
  return (
    <div
      className="meter"
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(pct)}
      aria-valuetext={valueText}
    >
      <span className="meter-fill" style={{ width: `${pct}%`, background: color }} />
    </div>
  );
}
