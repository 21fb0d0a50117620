-- Each notification channel keeps its own place in the audit log and its own day's digest, so a
-- mail server that is down holds its notices without Slack's being held or lost (and the other
-- way round). Null: the shared auditCursor / lastDigestAt, which stay the lowest of the channels'.
ALTER TABLE "NotificationSettings" ADD COLUMN "emailCursor" BIGINT,
  ADD COLUMN "slackCursor" BIGINT,
  ADD COLUMN "emailDigestAt" TIMESTAMP(3),
  ADD COLUMN "slackDigestAt" TIMESTAMP(3);
