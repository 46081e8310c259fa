-- CreateTable
CREATE TABLE "recordings" (
    "session_id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "chunks" INTEGER NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "pages" INTEGER NOT NULL DEFAULT 0,
    "head" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recordings_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "recording_chunks" (
    "session_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "pages" INTEGER NOT NULL,
    "body" BYTEA NOT NULL,
    "body_sha256" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recording_chunks_pkey" PRIMARY KEY ("session_id","seq")
);

-- CreateIndex
CREATE INDEX "recordings_workspace_id_idx" ON "recordings"("workspace_id");
