-- AlterTable
ALTER TABLE "crawls" ADD COLUMN     "requeued_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "crawl_urls" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0;
