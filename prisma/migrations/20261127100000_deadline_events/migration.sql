-- When the deadline callback events of a request were recorded (deletion_request.overdue once,
-- deletion_request.at_risk once per deadline: extending it allows another).
ALTER TABLE "DeletionRequest" ADD COLUMN "overdueEventAt" TIMESTAMP(3),
  ADD COLUMN "atRiskEventAt" TIMESTAMP(3);
