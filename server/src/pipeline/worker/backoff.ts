export { pollDelayMs, retryDelayMs } from '../../lib/backoff';
