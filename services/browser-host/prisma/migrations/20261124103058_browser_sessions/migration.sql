-- CreateTable
CREATE TABLE "browser_sessions" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "operation_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "outcome" TEXT,
    "options" JSONB NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),
    "charged_mc" BIGINT NOT NULL DEFAULT 0,
    "proxy_bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "browser_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "browser_sessions_workspace_id_started_at_idx" ON "browser_sessions"("workspace_id", "started_at");

-- CreateIndex
CREATE INDEX "browser_sessions_status_heartbeat_at_idx" ON "browser_sessions"("status", "heartbeat_at");
