import net from 'node:net';

/** A TCP port nothing listens on right now (the OS picks it), for test servers on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `check` stops throwing, or fails with its last error after `timeoutMs`. */
export async function waitUntil(check: () => Promise<unknown>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} did not start: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
