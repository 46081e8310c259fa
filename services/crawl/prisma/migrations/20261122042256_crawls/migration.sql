-- CreateTable
CREATE TABLE "crawls" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "request_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "options" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "outcome" TEXT,
    "hold_id" TEXT NOT NULL,
    "limit" INTEGER NOT NULL,
    "claimed" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "discovered" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deadline_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "progress_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crawls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawl_urls" (
    "crawl_id" UUID NOT NULL,
    "url_key" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "lease_until" TIMESTAMPTZ(3),
    "parent_key" TEXT,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crawl_urls_pkey" PRIMARY KEY ("crawl_id","url_key")
);

-- CreateTable
CREATE TABLE "crawl_pages" (
    "crawl_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "url_key" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "document" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crawl_pages_pkey" PRIMARY KEY ("crawl_id","seq")
);

-- CreateTable
CREATE TABLE "crawl_failures" (
    "crawl_id" UUID NOT NULL,
    "url_key" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crawl_failures_pkey" PRIMARY KEY ("crawl_id","url_key")
);

-- CreateTable
CREATE TABLE "crawl_hosts" (
    "crawl_id" UUID NOT NULL,
    "host" TEXT NOT NULL,
    "next_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "gap_ms" INTEGER NOT NULL,
    "robots" TEXT,

    CONSTRAINT "crawl_hosts_pkey" PRIMARY KEY ("crawl_id","host")
);

-- CreateTable
CREATE TABLE "search_documents" (
    "workspace_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "language" TEXT,
    "tsv" tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce("title", '')), 'A') ||
        setweight(to_tsvector('english', coalesce("description", '')), 'B') ||
        setweight(to_tsvector('english', left(coalesce("content", ''), 200000)), 'C')
    ) STORED,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_documents_pkey" PRIMARY KEY ("workspace_id","url")
);

-- CreateIndex
CREATE INDEX "crawls_status_deadline_at_idx" ON "crawls"("status", "deadline_at");

-- CreateIndex
CREATE UNIQUE INDEX "crawls_workspace_id_request_id_key" ON "crawls"("workspace_id", "request_id");

-- CreateIndex
CREATE INDEX "crawl_urls_crawl_id_state_idx" ON "crawl_urls"("crawl_id", "state");

-- CreateIndex
CREATE INDEX "crawl_urls_crawl_id_parent_key_idx" ON "crawl_urls"("crawl_id", "parent_key");

-- CreateIndex
CREATE UNIQUE INDEX "crawl_pages_crawl_id_url_key_key" ON "crawl_pages"("crawl_id", "url_key");

-- AddForeignKey
ALTER TABLE "crawl_urls" ADD CONSTRAINT "crawl_urls_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crawl_pages" ADD CONSTRAINT "crawl_pages_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crawl_failures" ADD CONSTRAINT "crawl_failures_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "crawl_hosts" ADD CONSTRAINT "crawl_hosts_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search over a workspace's pages (written by hand: Prisma cannot express a generated column).
CREATE INDEX "search_documents_tsv_idx" ON "search_documents" USING GIN ("tsv");
