-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "console_sessions" (
    "id" UUID NOT NULL,
    "token_hash" BYTEA NOT NULL,
    "user_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "console_sessions_token_hash_key" ON "console_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "console_sessions_workspace_id_user_id_idx" ON "console_sessions"("workspace_id", "user_id");

-- CreateIndex
CREATE INDEX "console_sessions_last_seen_at_idx" ON "console_sessions"("last_seen_at");

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_workspace_id_user_id_fkey" FOREIGN KEY ("workspace_id", "user_id") REFERENCES "memberships"("workspace_id", "user_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A key's last use is no part of what gateways cache (docs/decisions/0007-api-key-cache.md):
-- writing it must not make every gateway drop the key. Only the cached columns announce.
DROP TRIGGER "api_keys_changed" ON "api_keys";
CREATE TRIGGER api_keys_changed AFTER UPDATE OF key_id, workspace_id, secret_hash, revoked_at, surfaces OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION identity_changed();
