-- Why a request was closed without being fulfilled, as the member who canceled it chose (null:
-- canceled without a reason, as the API allowed before, or not canceled).
ALTER TABLE "DeletionRequest" ADD COLUMN "cancelReason" TEXT, ADD COLUMN "cancelNote" TEXT;
ALTER TABLE "DeletionRequest" ADD CONSTRAINT "DeletionRequest_cancelReason_check"
  CHECK ("cancelReason" IN ('withdrawn', 'identity_not_verified', 'legal_exemption', 'duplicate', 'other'));
