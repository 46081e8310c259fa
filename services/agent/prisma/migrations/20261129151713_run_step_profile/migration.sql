-- AlterTable
ALTER TABLE "agent_runs" ADD COLUMN     "step_profile" TEXT;
