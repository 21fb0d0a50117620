import { auditLogInputSchema } from '@shared/schemas/dashboard';
import { adminProcedure } from '../../trpc/procedures';
import { listAuditLog } from '../../services/dashboard/list-audit-log';

/** The organization audit log, newest first: admins and owners only. */
export const auditLog = adminProcedure.input(auditLogInputSchema).query(({ ctx, input }) => listAuditLog(ctx.prisma, ctx.actor, input));
