-- AlterTable
ALTER TABLE "Integration" ADD COLUMN     "callsPerStep" DOUBLE PRECISION NOT NULL DEFAULT 1;

