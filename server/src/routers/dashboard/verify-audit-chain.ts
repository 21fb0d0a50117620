import { adminProcedure } from '../../trpc/procedures';
import { verifyOrganizationAuditChain } from '../../services/audit/verify-organization-audit-chain';

/** Whether the organization's tamper-evident audit chain verifies, and its first break: admins and owners, like the audit log. */
export const verifyAuditChain = adminProcedure.query(({ ctx }) => verifyOrganizationAuditChain(ctx.prisma, ctx.actor));
