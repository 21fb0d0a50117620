/**
 * The most of `calls` runs of `session` that were inside at once. A run calls `inside` once it
 * holds what is counted (a connection), and stays inside until every run that could get in has
 * (none came in for half a second).
 */
export async function mostAtOnce(
  calls: number,
  session: (inside: () => Promise<void>) => Promise<unknown>,
): Promise<number> {
  let current = 0;
  let most = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const inside = async () => {
    most = Math.max(most, ++current);
    await gate;
    current--;
  };
  let failure: unknown = null;
  const runs = Array.from({ length: calls }, () =>
    session(inside).catch((error: unknown) => {
      failure ??= error;
    }),
  );
  // A run that failed (no connection at all) ends the wait instead of leaving it to the test's timeout.
  for (let seen = -1; failure === null && (seen !== most || most === 0);) {
    seen = most;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  release();
  await Promise.all(runs);
  if (failure !== null) throw failure;
  return most;
}
