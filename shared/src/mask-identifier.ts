/**
 * How the dashboard shows a subject identifier until someone reveals it: an email keeps its
 * first character and its domain (`j***@example.com`), anything else its first and last
 * character (`u***2`); four characters or fewer are all masked.
 */
export function maskIdentifier(identifier: string): string {
  const chars = [...identifier];
  const at = identifier.lastIndexOf('@');
  if (at > 0 && at < identifier.length - 1) return `${chars[0]}***${identifier.slice(at)}`;
  if (chars.length <= 4) return '***';
  return `${chars[0]}***${chars[chars.length - 1]}`;
}
