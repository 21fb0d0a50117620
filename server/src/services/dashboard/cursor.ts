export { decodeDueCursor, decodeKeysetCursor, encodeDueCursor, encodeKeysetCursor } from '../../lib/keyset-cursor';
