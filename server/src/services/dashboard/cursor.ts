export { decodeKeysetCursor, encodeKeysetCursor } from '../../lib/keyset-cursor';
