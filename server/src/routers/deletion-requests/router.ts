import { router } from '../../trpc/init';
import { create } from './create';
import { createInWorkspace } from './create-in-workspace';
import { listOrganization, listUser, listWorkspace } from './list';

export const deletionRequestsRouter = router({ create, createInWorkspace, listOrganization, listWorkspace, listUser });
