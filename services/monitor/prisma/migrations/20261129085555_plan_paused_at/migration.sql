-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "plan_paused_at" TIMESTAMPTZ(3);
