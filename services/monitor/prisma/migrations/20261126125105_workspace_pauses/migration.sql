-- CreateTable
CREATE TABLE "workspace_pauses" (
    "workspace_id" TEXT NOT NULL,
    "paused_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "probe_at" TIMESTAMPTZ(3) NOT NULL,
    "probes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "workspace_pauses_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateIndex
CREATE INDEX "workspace_pauses_probe_at_idx" ON "workspace_pauses"("probe_at");
