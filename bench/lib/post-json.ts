import http from 'node:http';

/** POSTs `body` as JSON through `agent` and resolves with the status once the answer is read. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  agent: http.Agent,
): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Creates a deletion request for each identifier through the public API, `concurrency` at a
 * time over `agent`; throws at the first answer other than 201.
 */
export async function createRequests(
  target: { apiUrl: string; pat: string; workspaceApiKey: string; agent: http.Agent; concurrency: number },
  identifiers: readonly string[],
): Promise<void> {
  let next = 0;
  const createOne = async () => {
    while (next < identifiers.length) {
      const identifier = identifiers[next++]!;
      const status = await postJson(
        `${target.apiUrl}/api/public/deletion-requests`,
        { 'x-api-key': target.pat },
        { workspaceApiKey: target.workspaceApiKey, identifier },
        target.agent,
      );
      if (status !== 201) throw new Error(`create answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: target.concurrency }, createOne));
}
