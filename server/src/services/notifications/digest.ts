import { businessDaysLeft, DAY_MS } from '@shared/days-left';
import { dateIn, dayIn, endOfDayIn } from '@shared/zoned-days';
import type { Config } from '../../config';
import { atRiskRequests, type AtRiskRequest } from '../deadlines/at-risk';
import { receiptToConfirmWhere, unfulfilledWhere } from '../deadlines/pending';
import { tasksLateForDeadline } from '../manual-tasks/list-tasks';
import type { Notice, NotifyDeps } from './notify';

const DIGEST_LIST_MAX = 20;
/** CCPA receipts are due by days on California's calendar. */
const CALIFORNIA = 'America/Los_Angeles';
/** Requests with a deadline ahead the digest reads at most to count those at risk. */
const DIGEST_AT_RISK_MAX = 5_000;

/** A request's page in the dashboard, as notices link to it. */
export const requestLink = (config: Config, id: string) => new URL(`/requests/${id}`, config.PUBLIC_URL).toString();

/**
 * The daily digest: unfulfilled requests past their deadline and those projected to miss it, and
 * the CCPA confirmations of receipt due by tomorrow or late.
 */
export async function buildDigest(
  deps: NotifyDeps,
  organizationId: string,
  now: Date,
  atRiskMax = DIGEST_AT_RISK_MAX,
): Promise<Notice | null> {
  const unfulfilled = { organizationId, ...unfulfilledWhere };
  // CCPA confirmations of receipt due by the end of tomorrow in California or already late, not recorded.
  const receiptsDue = {
    organizationId,
    ...receiptToConfirmWhere,
    receiptConfirmBy: { not: null, lte: endOfDayIn(dayIn(now, CALIFORNIA) + DAY_MS, CALIFORNIA) },
  };
  const [{ timeZone }, overdueTotal, overdue, receiptTotal, receipts] = await Promise.all([
    deps.prisma.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { timeZone: true } }),
    deps.prisma.deletionRequest.count({ where: { ...unfulfilled, dueAt: { lte: now } } }),
    deps.prisma.deletionRequest.findMany({
      where: { ...unfulfilled, dueAt: { lte: now } },
      orderBy: { dueAt: 'asc' },
      take: DIGEST_LIST_MAX,
      select: { id: true, dueAt: true },
    }),
    deps.prisma.deletionRequest.count({ where: receiptsDue }),
    deps.prisma.deletionRequest.findMany({
      where: receiptsDue,
      orderBy: [{ receiptConfirmBy: 'asc' }, { id: 'asc' }],
      take: DIGEST_LIST_MAX,
      select: { id: true, receiptConfirmBy: true },
    }),
  ]);
  // Every request at risk is counted (up to `atRiskMax` read, then "N+"); the first DIGEST_LIST_MAX are listed.
  const atRisk: AtRiskRequest[] = [];
  let atRiskTotal = 0;
  const pages = atRiskRequests(deps.prisma, organizationId, now, { max: atRiskMax });
  let next = await pages.next();
  for (; !next.done; next = await pages.next()) {
    atRiskTotal += next.value.length;
    atRisk.push(...next.value.slice(0, DIGEST_LIST_MAX - atRisk.length));
  }
  const lateTasks = await tasksLateForDeadline(deps.prisma, organizationId, now, DIGEST_LIST_MAX);
  if (overdueTotal === 0 && atRiskTotal === 0 && receiptTotal === 0 && lateTasks.length === 0) return null;
  const atRiskCount = `${atRiskTotal}${next.value.capped ? '+' : ''}`;
  // A deadline's day where it is counted: the organization's zone, California's for a receipt.
  const day = (d: Date | null, zone = timeZone) => (d ? dateIn(d, zone) : '');
  const lines = [`${overdueTotal} request(s) overdue, ${atRiskCount} at risk.`];
  if (overdue.length)
    lines.push(
      '',
      'Overdue:',
      ...overdue.map(
        (r) =>
          `- ${r.id} (due ${day(r.dueAt)}, ${Math.floor((now.getTime() - r.dueAt!.getTime()) / DAY_MS)} day(s) late) ${requestLink(deps.config, r.id)}`,
      ),
    );
  if (atRisk.length)
    lines.push(
      '',
      'At risk:',
      ...atRisk.map(
        (r) => `- ${r.id} (due ${day(r.dueAt)}): ${r.reasons.join('; ')} ${requestLink(deps.config, r.id)}`,
      ),
    );
  if (receipts.length) {
    lines.push(
      '',
      `Receipt to confirm to the subject (CCPA), due by tomorrow or late: ${receiptTotal}`,
      ...receipts.map(
        (r) =>
          `- ${r.id} (due ${day(r.receiptConfirmBy, CALIFORNIA)}${businessDaysLeft(r.receiptConfirmBy!, now) < 0 ? ', late' : ''}) ${requestLink(deps.config, r.id)}`,
      ),
    );
  }
  if (lateTasks.length)
    lines.push(
      '',
      'Manual tasks late for the legal deadline:',
      ...lateTasks.map(
        (t) =>
          `- ${t.integrationName} for ${t.deletionRequestId} (task due ${day(new Date(t.dueAt))}, request due ${day(new Date(t.requestDueAt))}) ${requestLink(deps.config, t.deletionRequestId)}`,
      ),
    );
  const receiptPart = receiptTotal ? `, ${receiptTotal} receipt(s) to confirm` : '';
  return {
    subject: `Deadlines: ${overdueTotal} overdue, ${atRiskCount} at risk${receiptPart}`,
    text: lines.join('\n'),
  };
}
