import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal confirmation on the native <dialog>: focus is trapped, Escape cancels, and the
 * confirm button can require typing a phrase for destructive actions.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The button that closes without acting; say what it keeps ("Keep request") when "Cancel" would be ambiguous. */
  cancelLabel?: string;
  destructive?: boolean;
  busy?: boolean;
  error?: string | null;
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        <div className="dialog-body">{props.children}</div>
        {props.error ? (
          <p className="form-error" role="alert">
            {props.error}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={props.onCancel}>
            {props.cancelLabel ?? 'Cancel'}
          </button>
          <button
            type="submit"
            className={props.destructive ? 'button button-danger' : 'button button-primary'}
            disabled={props.busy || props.confirmDisabled}
          >
            {props.busy ? 'Working…' : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
