-- CreateTable
CREATE TABLE "profiles" (
    "id" UUID NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "exit_id" TEXT NOT NULL,
    "exit_kind" TEXT NOT NULL,
    "exit_region" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "state_id" UUID,
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "lease_session" UUID,
    "lease_host" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "profile_states" (
    "id" UUID NOT NULL,
    "profile_id" UUID NOT NULL,
    "data" BYTEA NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "profile_states_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "profiles_workspace_id_created_at_id_idx" ON "profiles"("workspace_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "profiles_lease_host_idx" ON "profiles"("lease_host");

-- CreateIndex
CREATE INDEX "profile_states_profile_id_idx" ON "profile_states"("profile_id");
