-- CreateTable
CREATE TABLE "cached_pages" (
    "workspace_id" UUID NOT NULL,
    "cache_key" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "final_url" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cached_pages_pkey" PRIMARY KEY ("workspace_id","cache_key")
);

-- CreateIndex
CREATE INDEX "cached_pages_fetched_at_idx" ON "cached_pages"("fetched_at");
