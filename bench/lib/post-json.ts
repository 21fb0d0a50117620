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
