-- Written by hand: (workspace_id, created_at, id) of the previous migration
-- serves everything this index did; dropping it spares every usage row a write.
DROP INDEX CONCURRENTLY "usage_records_workspace_id_created_at_idx";
