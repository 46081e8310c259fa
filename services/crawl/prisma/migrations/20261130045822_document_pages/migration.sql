-- AlterTable
ALTER TABLE "crawls" ADD COLUMN     "document_pages" INTEGER NOT NULL DEFAULT 0;
