import { PermanentError, TransientError } from '../types';

// Server errors a later attempt may not hit: lock waits, deadlocks, timeouts, too many connections, shutdowns.
const TRANSIENT_ERRNOS = new Set([
  1205, 1213, 1969, 3024, 1040, 1053, 1077, 1078, 1079, 1080, 1152, 1153, 1158, 1159, 1160, 1161, 2006, 2013,
]);

/**
 * A MySQL/MariaDB error as the engine understands it. Messages that can quote row values
 * (a duplicate key) lose the quoted value: personal data stays in the customer's database.
 */
export function classifyMysqlError(error: unknown): TransientError | PermanentError {
  if (error instanceof TransientError || error instanceof PermanentError) return error;
  const e = error as { errno?: number; code?: string; sqlState?: string; message?: string; fatal?: boolean };
  let message = e.message ?? String(error);
  if (e.code === 'ER_DUP_ENTRY') message = message.replace(/Duplicate entry '.*' for key/s, 'Duplicate entry for key');
  if (e.errno && TRANSIENT_ERRNOS.has(e.errno)) return new TransientError(`Database: ${message} (${e.code})`);
  if (e.sqlState && e.errno) return new PermanentError(`Database: ${message} (${e.code})`);
  // Connection refused, reset, lost, TLS handshake: the database may be back later.
  return new TransientError(`Database connection: ${message}`);
}
