-- Written by hand from `wap-db diff`: ListCalls pages newest first by
-- (created_at, id); with id in the index a page after a cursor is an index
-- range, however deep. Built CONCURRENTLY so settles and charges keep
-- writing usage rows meanwhile; that needs a migration of its own (it cannot
-- run in the transaction a multi-statement script is). The old index goes in
-- the next migration, once this one serves Usage's ranges too.
CREATE INDEX CONCURRENTLY "usage_records_workspace_id_created_at_id_idx" ON "usage_records"("workspace_id", "created_at", "id");
