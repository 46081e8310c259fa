-- AlterTable
ALTER TABLE "browser_sessions" ADD COLUMN     "seconds" INTEGER NOT NULL DEFAULT 0;
