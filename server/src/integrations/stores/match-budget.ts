import { PermanentError } from '../types';

/**
 * A request's limit on what all its rules may reach together (maxKeys, maxObjects, maxItems):
 * each rule takes from what the earlier ones left, and going over fails the request before anything is erased.
 */
export class MatchBudget {
  private used = 0;

  constructor(
    readonly limit: number,
    private readonly unit: string,
  ) {}

  /** Throws when `found` more (a rule's matches so far) would go over the limit. */
  check(found: number, rule: string): void {
    if (this.used + found <= this.limit) return;
    throw new PermanentError(
      this.used === 0
        ? `More than ${this.limit} ${this.unit} match ${rule}: raise the limit if that is expected`
        : `More than ${this.limit} ${this.unit} match this request's rules (${this.used} before ${rule}): raise the limit if that is expected`,
    );
  }

  /** Counts a rule's matches, once it has found them all. */
  take(found: number): void {
    this.used += found;
  }
}
