-- AlterTable
ALTER TABLE "crawls" ADD COLUMN     "webhook" JSONB;

-- CreateTable
CREATE TABLE "crawl_webhook_deliveries" (
    "id" UUID NOT NULL,
    "crawl_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "log" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "crawl_webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "crawl_webhook_deliveries_status_next_attempt_idx" ON "crawl_webhook_deliveries"("status", "next_attempt");

-- CreateIndex
CREATE INDEX "crawl_webhook_deliveries_crawl_id_idx" ON "crawl_webhook_deliveries"("crawl_id");

-- AddForeignKey
ALTER TABLE "crawl_webhook_deliveries" ADD CONSTRAINT "crawl_webhook_deliveries_crawl_id_fkey" FOREIGN KEY ("crawl_id") REFERENCES "crawls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
