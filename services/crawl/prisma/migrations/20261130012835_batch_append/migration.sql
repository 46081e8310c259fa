-- AlterTable
ALTER TABLE "crawls" ADD COLUMN     "extra_holds" JSONB NOT NULL DEFAULT '[]';
