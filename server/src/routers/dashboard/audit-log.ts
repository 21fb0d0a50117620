import { auditLogInputSchema } from '@shared/schemas/dashboard';
import { adminProcedure } from '../../trpc/procedures';
import { listAuditActions, listAuditLog } from '../../services/dashboard/list-audit-log';

/** The organization audit log, newest first, with filters: admins and owners only. */
export const auditLog = adminProcedure
  .input(auditLogInputSchema)
  .query(({ ctx, input }) => listAuditLog(ctx.prisma, ctx.actor, input));

/** The action names recorded in the organization, for the audit log's action filter. */
export const auditLogActions = adminProcedure.query(({ ctx }) => listAuditActions(ctx.prisma, ctx.actor));
