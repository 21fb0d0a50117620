/**
 * A lookup that could not run or whose answer was unusable. `transient` says whether a later
 * attempt may succeed (a timeout, a 5xx, a lost connection). The message never holds an
 * identifier value or a secret: it becomes the request's status reason and an audit line.
 */
export class LookupError extends Error {
  readonly transient: boolean;
  readonly retryAfterMs?: number;

  constructor(message: string, options: { transient: boolean; retryAfterMs?: number }) {
    super(message);
    this.name = 'LookupError';
    this.transient = options.transient;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** A lookup configuration refused at save time; `field` names the setting at fault. */
export class LookupConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'LookupConfigError';
  }
}
