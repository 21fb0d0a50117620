import { router } from '../../trpc/init';
import { check, checkBatch } from './check';

export const erasureChecksRouter = router({ check, checkBatch });
