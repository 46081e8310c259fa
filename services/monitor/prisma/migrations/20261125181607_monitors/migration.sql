-- CreateTable
CREATE TABLE "monitors" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "schedule" JSONB NOT NULL,
    "watch" JSONB NOT NULL,
    "scrape" JSONB NOT NULL,
    "target_kind" TEXT NOT NULL,
    "target_sealed" TEXT NOT NULL,
    "target_shown" TEXT NOT NULL,
    "secret_sealed" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "anchor_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_check_at" TIMESTAMPTZ(3) NOT NULL,
    "skipped_reason" TEXT,
    "last_check_at" TIMESTAMPTZ(3),
    "last_status" TEXT,
    "last_changed" BOOLEAN NOT NULL DEFAULT false,
    "last_error_code" TEXT,

    CONSTRAINT "monitors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checks" (
    "id" UUID NOT NULL,
    "monitor_id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "claimed_by" TEXT NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "status" TEXT,
    "error_code" TEXT,

    CONSTRAINT "checks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snapshots" (
    "id" UUID NOT NULL,
    "monitor_id" UUID NOT NULL,
    "check_id" UUID NOT NULL,
    "text" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "diff" JSONB,
    "taken_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "snapshots_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" UUID NOT NULL,
    "monitor_id" UUID NOT NULL,
    "snapshot_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "log" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "monitors_next_check_at_idx" ON "monitors"("next_check_at");

-- CreateIndex
CREATE INDEX "monitors_workspace_id_created_at_id_idx" ON "monitors"("workspace_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checks_monitor_id_idx" ON "checks"("monitor_id");

-- CreateIndex
CREATE INDEX "checks_finished_at_lease_until_idx" ON "checks"("finished_at", "lease_until");

-- CreateIndex
CREATE INDEX "snapshots_monitor_id_taken_at_idx" ON "snapshots"("monitor_id", "taken_at" DESC);

-- CreateIndex
CREATE INDEX "deliveries_status_next_attempt_idx" ON "deliveries"("status", "next_attempt");

-- CreateIndex
CREATE INDEX "deliveries_monitor_id_created_at_idx" ON "deliveries"("monitor_id", "created_at" DESC);
