/** The fetch the tRPC link uses: the platform fetch, sending the session cookie. */
export const trpcFetch: typeof fetch = (input, init) => fetch(input, { ...init, credentials: 'same-origin' });
