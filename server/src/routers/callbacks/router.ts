import { router } from '../../trpc/init';
import { deliveries, resend, sendTest } from './deliveries';
import { create, list, remove, rotateSecret, update } from './endpoints';

/** Admins (or tokens with `callbacks:manage`) manage the organization's callback endpoints, in the dashboard and over REST. */
export const callbacksRouter = router({
  list,
  create,
  update,
  delete: remove,
  rotateSecret,
  sendTest,
  deliveries,
  resend,
});
