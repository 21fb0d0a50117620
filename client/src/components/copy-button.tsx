import { useEffect, useState } from 'react';

/** Copies `value` to the clipboard and says so for a moment (also to screen readers). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className="button button-small"
      onClick={() => {
        if (!navigator.clipboard) return setState('failed');
        navigator.clipboard.writeText(value).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select and copy' : label}
      </span>
    </button>
  );
}

/** A secret or id in monospace, selectable, with a copy button. */
export function CopyableValue({ value, label }: { value: string; label: string }) {
  return (
    <div className="copyable">
      <code aria-label={label} className="mono selectable">
        {value}
      </code>
      <CopyButton value={value} label={`Copy`} />
    </div>
  );
}
