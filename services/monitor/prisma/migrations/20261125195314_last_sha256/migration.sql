-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "last_sha256" TEXT;

-- Monitors checked before the column existed compare with their newest snapshot.
UPDATE "monitors" m SET "last_sha256" = (
  SELECT s."sha256" FROM "snapshots" s WHERE s."monitor_id" = m."id" ORDER BY s."taken_at" DESC LIMIT 1);
