-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'builder', 'pro', 'scale');

-- CreateEnum
CREATE TYPE "GrantKind" AS ENUM ('promotional', 'student', 'purchased');

-- CreateEnum
CREATE TYPE "HoldStatus" AS ENUM ('active', 'settled', 'voided', 'expired');

-- CreateEnum
CREATE TYPE "EntryKind" AS ENUM ('grant', 'spend');

-- CreateEnum
CREATE TYPE "Meter" AS ENUM ('context_seconds', 'page_load', 'search_result', 'agent_seconds', 'monitor_change', 'proxy_bytes', 'bytes_egress', 'tokens');

-- CreateEnum
CREATE TYPE "Operation" AS ENUM ('authorize', 'settle', 'charge', 'grant');

-- CreateTable
CREATE TABLE "accounts" (
    "workspace_id" TEXT NOT NULL,
    "plan" "Plan" NOT NULL,
    "monthly_allowance_mc" BIGINT NOT NULL,
    "slot_limit" INTEGER NOT NULL,
    "allowance_period_start" TIMESTAMPTZ(3) NOT NULL,
    "allowance_mc" BIGINT NOT NULL,
    "allowance_spent_mc" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "grants" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" "GrantKind" NOT NULL,
    "amount_mc" BIGINT NOT NULL,
    "spent_mc" BIGINT NOT NULL DEFAULT 0,
    "lapses_at" TIMESTAMPTZ(3),
    "note" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "holds" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "amount_mc" BIGINT NOT NULL,
    "settled_mc" BIGINT NOT NULL DEFAULT 0,
    "status" "HoldStatus" NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "released_mc" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "holds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "entries" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" "EntryKind" NOT NULL,
    "amount_mc" BIGINT NOT NULL,
    "usage_id" UUID,
    "hold_id" UUID,
    "grant_id" UUID,
    "allowance_period_start" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_records" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "hold_id" UUID,
    "idempotency_key" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "priced_mc" BIGINT NOT NULL,
    "charged_mc" BIGINT NOT NULL,
    "uncollected_mc" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_meters" (
    "usage_id" UUID NOT NULL,
    "meter" "Meter" NOT NULL,
    "quantity" BIGINT NOT NULL,
    "mc" BIGINT NOT NULL,

    CONSTRAINT "usage_meters_pkey" PRIMARY KEY ("usage_id","meter")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "workspace_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "operation" "Operation" NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("workspace_id","key")
);

-- CreateTable
CREATE TABLE "slot_leases" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "slot_leases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "grants_workspace_id_created_at_idx" ON "grants"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "entries_workspace_id_created_at_idx" ON "entries"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "entries_grant_id_idx" ON "entries"("grant_id");

-- CreateIndex
CREATE INDEX "usage_records_workspace_id_created_at_idx" ON "usage_records"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "slot_leases_expires_at_idx" ON "slot_leases"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "slot_leases_workspace_id_holder_key" ON "slot_leases"("workspace_id", "holder");

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "accounts"("workspace_id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "holds" ADD CONSTRAINT "holds_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "accounts"("workspace_id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "entries" ADD CONSTRAINT "entries_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "accounts"("workspace_id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "entries" ADD CONSTRAINT "entries_hold_id_fkey" FOREIGN KEY ("hold_id") REFERENCES "holds"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "entries" ADD CONSTRAINT "entries_grant_id_fkey" FOREIGN KEY ("grant_id") REFERENCES "grants"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "entries" ADD CONSTRAINT "entries_usage_id_fkey" FOREIGN KEY ("usage_id") REFERENCES "usage_records"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "accounts"("workspace_id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_hold_id_fkey" FOREIGN KEY ("hold_id") REFERENCES "holds"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "usage_meters" ADD CONSTRAINT "usage_meters_usage_id_fkey" FOREIGN KEY ("usage_id") REFERENCES "usage_records"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "accounts"("workspace_id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "slot_leases" ADD CONSTRAINT "slot_leases_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "accounts"("workspace_id") ON DELETE RESTRICT ON UPDATE RESTRICT;
