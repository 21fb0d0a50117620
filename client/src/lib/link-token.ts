/** The single-use token of a mailed link, carried in the fragment (#token=…) so it never reaches a server log. */
export function tokenFromHash(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}
