/** The one-time link an invitee opens: `${PUBLIC_URL}/invite/<token>` (the SPA's accept page). */
export function invitationLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/invite/${encodeURIComponent(token)}`;
}
