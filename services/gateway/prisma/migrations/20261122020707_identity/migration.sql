-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'builder', 'pro', 'scale');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('owner', 'member');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "plan" "Plan" NOT NULL DEFAULT 'free',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'member',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("workspace_id","user_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "key_id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "secret_hash" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_windows" (
    "workspace_id" UUID NOT NULL,
    "window" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_windows_pkey" PRIMARY KEY ("workspace_id","window")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "workspace_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "done" BOOLEAN NOT NULL DEFAULT false,
    "status_code" INTEGER,
    "body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("workspace_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_id_key" ON "api_keys"("key_id");

-- CreateIndex
CREATE INDEX "api_keys_workspace_id_idx" ON "api_keys"("workspace_id");

-- CreateIndex
CREATE INDEX "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Sliding-window-counter rate limiting in one round trip, shared by every
-- gateway replica (docs/decisions/0005-rate-limit-store.md). The current
-- window's row is locked, the previous window's count is weighted by how much
-- of it still overlaps the sliding minute, and the request is counted only if
-- it is allowed, so a client hammering a closed limit does not keep it closed.
CREATE FUNCTION rate_limit_take(p_workspace UUID, p_limit INTEGER, p_window_ms INTEGER)
RETURNS TABLE (allowed BOOLEAN, remaining INTEGER, reset_ms INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := floor(extract(epoch FROM clock_timestamp()) * 1000);
  win BIGINT := now_ms / p_window_ms;
  elapsed BIGINT := now_ms - win * p_window_ms;
  cur INTEGER;
  prev INTEGER;
  weighted DOUBLE PRECISION;
BEGIN
  INSERT INTO rate_windows (workspace_id, "window", count) VALUES (p_workspace, win, 0)
    ON CONFLICT (workspace_id, "window") DO NOTHING;
  SELECT count INTO cur FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win FOR UPDATE;
  SELECT count INTO prev FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win - 1;
  weighted := coalesce(prev, 0) * (p_window_ms - elapsed)::DOUBLE PRECISION / p_window_ms;
  IF floor(weighted) + cur < p_limit THEN
    UPDATE rate_windows SET count = cur + 1 WHERE workspace_id = p_workspace AND "window" = win;
    allowed := TRUE;
    remaining := greatest(p_limit - (floor(weighted)::INTEGER + cur + 1), 0);
  ELSE
    allowed := FALSE;
    remaining := 0;
  END IF;
  -- When a denied request may succeed: once enough of the previous window has
  -- slid out, or at the latest when this window ends.
  IF NOT allowed AND coalesce(prev, 0) > 0 AND cur < p_limit THEN
    reset_ms := least(
      p_window_ms - elapsed,
      ceil((floor(weighted) + cur + 1 - p_limit) * p_window_ms::DOUBLE PRECISION / prev)::INTEGER);
    reset_ms := greatest(reset_ms, 1);
  ELSE
    reset_ms := p_window_ms - elapsed;
  END IF;
  -- Windows older than the previous one no longer count; drop them now and then.
  IF random() < 0.01 THEN
    DELETE FROM rate_windows WHERE workspace_id = p_workspace AND "window" < win - 1;
  END IF;
  RETURN NEXT;
END;
$$;
