-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "outcome" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "options" JSONB NOT NULL,
    "context_seconds" INTEGER NOT NULL DEFAULT 0,
    "proxy_bytes" BIGINT NOT NULL DEFAULT 0,
    "charged_mc" BIGINT NOT NULL DEFAULT 0,
    "page_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sessions_workspace_id_started_at_id_idx" ON "sessions"("workspace_id", "started_at" DESC, "id" DESC);
