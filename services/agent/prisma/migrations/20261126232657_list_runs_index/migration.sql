-- DropIndex
DROP INDEX "agent_runs_workspace_id_created_at_idx";

-- CreateIndex
CREATE INDEX "agent_runs_workspace_id_created_at_id_idx" ON "agent_runs"("workspace_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "agent_runs_workspace_id_status_created_at_id_idx" ON "agent_runs"("workspace_id", "status", "created_at", "id");
