-- AlterTable
ALTER TABLE "network_requests" ADD COLUMN     "initiator" JSONB,
ADD COLUMN     "protocol" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "request_headers" JSONB,
ADD COLUMN     "response_headers" JSONB,
ADD COLUMN     "timing" JSONB;
