-- CreateTable
CREATE TABLE "agent_runs" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "request_id" TEXT NOT NULL,
    "task" TEXT NOT NULL,
    "start_url" TEXT,
    "profile_id" UUID,
    "output_schema" JSONB,
    "model" TEXT NOT NULL,
    "max_credits" INTEGER NOT NULL,
    "max_steps" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "outcome" TEXT,
    "paused_for" TEXT,
    "question" TEXT,
    "reply" TEXT,
    "answer" JSONB,
    "reason_code" TEXT,
    "reason_message" TEXT,
    "plan" JSONB NOT NULL DEFAULT '[]',
    "memory" JSONB NOT NULL DEFAULT '{}',
    "steps" INTEGER NOT NULL DEFAULT 0,
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "session_id" UUID,
    "site" TEXT,
    "claimed_by" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "metering" JSONB,
    "billed" JSONB NOT NULL DEFAULT '{}',
    "charged_mc" BIGINT NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "event_seq" BIGINT NOT NULL DEFAULT 0,
    "record_seq" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "agent_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_events" (
    "run_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "level" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "data" JSONB,

    CONSTRAINT "agent_events_pkey" PRIMARY KEY ("run_id","seq")
);

-- CreateTable
CREATE TABLE "agent_records" (
    "run_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB NOT NULL,

    CONSTRAINT "agent_records_pkey" PRIMARY KEY ("run_id","seq")
);

-- CreateTable
CREATE TABLE "agent_files" (
    "handle" TEXT NOT NULL,
    "run_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sealed" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_files_pkey" PRIMARY KEY ("handle")
);

-- CreateIndex
CREATE INDEX "agent_runs_status_lease_until_idx" ON "agent_runs"("status", "lease_until");

-- CreateIndex
CREATE INDEX "agent_runs_workspace_id_created_at_idx" ON "agent_runs"("workspace_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "agent_runs_workspace_id_request_id_key" ON "agent_runs"("workspace_id", "request_id");

-- CreateIndex
CREATE INDEX "agent_files_run_id_idx" ON "agent_files"("run_id");

-- AddForeignKey
ALTER TABLE "agent_events" ADD CONSTRAINT "agent_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_records" ADD CONSTRAINT "agent_records_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_files" ADD CONSTRAINT "agent_files_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
