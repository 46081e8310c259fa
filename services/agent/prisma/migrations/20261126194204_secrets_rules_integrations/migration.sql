-- CreateTable
CREATE TABLE "secrets" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "handle" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "domains" TEXT[],
    "last4" TEXT,
    "sealed" BYTEA NOT NULL,
    "wrapped_key" BYTEA NOT NULL,
    "kek_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_grants" (
    "run_id" UUID NOT NULL,
    "secret_handles" TEXT[],
    "integration_ids" UUID[],
    "integration_tools" JSONB NOT NULL DEFAULT '{}',
    "spend_cap" INTEGER,
    "per_purchase_limit" INTEGER,
    "currency" TEXT,
    "merchants" TEXT[],

    CONSTRAINT "run_grants_pkey" PRIMARY KEY ("run_id")
);

-- CreateTable
CREATE TABLE "run_secrets" (
    "run_id" UUID NOT NULL,
    "secret_id" UUID NOT NULL,

    CONSTRAINT "run_secrets_pkey" PRIMARY KEY ("run_id","secret_id")
);

-- CreateTable
CREATE TABLE "secret_intents" (
    "id" TEXT NOT NULL,
    "run_id" UUID NOT NULL,
    "secret_id" UUID NOT NULL,
    "domain" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "spent_at" TIMESTAMPTZ(3),

    CONSTRAINT "secret_intents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "integrations" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "secret_handle" TEXT NOT NULL,
    "server_name" TEXT NOT NULL,
    "server_version" TEXT NOT NULL,
    "tools" JSONB NOT NULL,
    "tools_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "changed_at" TIMESTAMPTZ(3),

    CONSTRAINT "integrations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rule_sets" (
    "workspace_id" UUID NOT NULL,
    "rules" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rule_sets_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "rule_proposals" (
    "key" TEXT NOT NULL,
    "rule" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rule_proposals_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "secrets_workspace_id_handle_key" ON "secrets"("workspace_id", "handle");

-- CreateIndex
CREATE INDEX "run_secrets_secret_id_idx" ON "run_secrets"("secret_id");

-- CreateIndex
CREATE INDEX "secret_intents_run_id_idx" ON "secret_intents"("run_id");

-- CreateIndex
CREATE INDEX "secret_intents_secret_id_idx" ON "secret_intents"("secret_id");

-- CreateIndex
CREATE UNIQUE INDEX "integrations_workspace_id_url_key" ON "integrations"("workspace_id", "url");

-- AddForeignKey
ALTER TABLE "run_grants" ADD CONSTRAINT "run_grants_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_secrets" ADD CONSTRAINT "run_secrets_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_secrets" ADD CONSTRAINT "run_secrets_secret_id_fkey" FOREIGN KEY ("secret_id") REFERENCES "secrets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "secret_intents" ADD CONSTRAINT "secret_intents_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "secret_intents" ADD CONSTRAINT "secret_intents_secret_id_fkey" FOREIGN KEY ("secret_id") REFERENCES "secrets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
