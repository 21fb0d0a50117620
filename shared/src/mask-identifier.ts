/** How much of one part is kept at each end: never more than half of it, nothing of four characters or fewer. */
function maskPart(part: string): string {
  const chars = [...part];
  const keep = chars.length >= 8 ? 2 : chars.length >= 5 ? 1 : 0;
  if (keep === 0) return '***';
  return `${chars.slice(0, keep).join('')}***${chars.slice(-keep).join('')}`;
}

/**
 * How the dashboard shows a subject identifier until someone reveals it: each part keeps its
 * first and last two characters (one when it has 5 to 7, none when it has 4 or fewer), so rows
 * of a list can be told apart without showing most of any value. An email masks its local part
 * and its domain's name apart, keeping the top-level domain: `pa***er@e***e.com`; anything
 * else as one part: `us***42`. The server adds a keyed tag for identifiers that still look alike.
 */
export function maskIdentifier(identifier: string): string {
  const at = identifier.lastIndexOf('@');
  if (at > 0 && at < identifier.length - 1) {
    const domain = identifier.slice(at + 1);
    const dot = domain.lastIndexOf('.');
    const maskedDomain =
      dot > 0 && dot < domain.length - 1 ? `${maskPart(domain.slice(0, dot))}${domain.slice(dot)}` : maskPart(domain);
    return `${maskPart(identifier.slice(0, at))}@${maskedDomain}`;
  }
  return maskPart(identifier);
}
