-- CreateTable
CREATE TABLE "network_requests" (
    "id" BIGSERIAL NOT NULL,
    "session_id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "tab" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "remote_address" TEXT NOT NULL,
    "request_bytes" BIGINT NOT NULL,
    "response_bytes" BIGINT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "error" TEXT NOT NULL,
    "body" TEXT,
    "body_truncated" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "network_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "network_requests_session_id_id_idx" ON "network_requests"("session_id", "id");
