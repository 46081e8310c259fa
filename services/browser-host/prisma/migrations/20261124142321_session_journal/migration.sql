-- AlterTable
ALTER TABLE "browser_sessions" ADD COLUMN     "host" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "metering" JSONB;

-- CreateIndex
CREATE INDEX "browser_sessions_host_status_idx" ON "browser_sessions"("host", "status");
