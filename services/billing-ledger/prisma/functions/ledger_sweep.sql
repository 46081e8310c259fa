-- Marks holds past their expiry and deletes lapsed leases, a batch at a time.
-- SKIP LOCKED lets every replica sweep at once without waiting on each other
-- or on a Settle that holds the row; such a row is picked up next pass.
CREATE OR REPLACE FUNCTION "ledger_sweep"(p_now timestamptz, p_limit int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  holds_done int;
  leases_done int;
BEGIN
  WITH due AS (
    SELECT "id" FROM "holds" WHERE "status" = 'active' AND "expires_at" <= p_now
     ORDER BY "expires_at" LIMIT p_limit FOR UPDATE SKIP LOCKED
  )
  UPDATE "holds" h SET "status" = 'expired', "resolved_at" = h."expires_at" FROM due WHERE h."id" = due."id";
  GET DIAGNOSTICS holds_done = ROW_COUNT;
  WITH due AS (
    SELECT "id" FROM "slot_leases" WHERE "expires_at" <= p_now LIMIT p_limit FOR UPDATE SKIP LOCKED
  )
  DELETE FROM "slot_leases" l USING due WHERE l."id" = due."id";
  GET DIAGNOSTICS leases_done = ROW_COUNT;
  RETURN greatest(holds_done, leases_done);
END
$$;
