-- Written by hand: concurrent-browser slots and the expiry sweep.
-- Acquire and Renew take the account row lock, so concurrent acquires count
-- leases one at a time and never pass the plan's limit.

CREATE FUNCTION "ledger_acquire_slot"(
  p_ws text, p_holder text, p_ttl_seconds int, p_now timestamptz, p_lease_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_limit int;
  lease "slot_leases";
  active int;
  expires timestamptz := p_now + make_interval(secs => p_ttl_seconds);
BEGIN
  SELECT "slot_limit" INTO v_limit FROM "accounts" WHERE "workspace_id" = p_ws FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', 'account_not_found'); END IF;
  -- A lapsed lease frees its slot here, so a late Renew of it cannot bring it back.
  DELETE FROM "slot_leases" WHERE "workspace_id" = p_ws AND "expires_at" <= p_now;
  SELECT count(*) INTO active FROM "slot_leases" WHERE "workspace_id" = p_ws;
  UPDATE "slot_leases" SET "expires_at" = expires
   WHERE "workspace_id" = p_ws AND "holder" = p_holder RETURNING * INTO lease;
  IF NOT FOUND THEN
    IF active >= v_limit THEN
      RETURN jsonb_build_object(
        'error', 'concurrency_limit', 'limit', v_limit, 'active', active,
        'retry_after_seconds', (SELECT ceil(extract(epoch FROM min("expires_at") - p_now))::int
                                  FROM "slot_leases" WHERE "workspace_id" = p_ws));
    END IF;
    INSERT INTO "slot_leases" ("id", "workspace_id", "holder", "expires_at", "created_at")
    VALUES (p_lease_id, p_ws, p_holder, expires, p_now) RETURNING * INTO lease;
    active := active + 1;
  END IF;
  RETURN jsonb_build_object('lease_id', lease."id", 'expires_at', (extract(epoch FROM lease."expires_at") * 1000)::bigint,
                            'limit', v_limit, 'active', active);
END
$$;

CREATE FUNCTION "ledger_renew_slot"(p_lease_id uuid, p_ttl_seconds int, p_now timestamptz) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ws text;
  expires timestamptz;
BEGIN
  SELECT "workspace_id" INTO ws FROM "slot_leases" WHERE "id" = p_lease_id;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', 'lease_not_found'); END IF;
  PERFORM 1 FROM "accounts" WHERE "workspace_id" = ws FOR UPDATE;
  UPDATE "slot_leases" SET "expires_at" = p_now + make_interval(secs => p_ttl_seconds)
   WHERE "id" = p_lease_id AND "expires_at" > p_now
  RETURNING "expires_at" INTO expires;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', 'lease_not_found'); END IF;
  RETURN jsonb_build_object('expires_at', (extract(epoch FROM expires) * 1000)::bigint);
END
$$;

-- Marks holds past their expiry and deletes lapsed leases, a batch at a time.
-- SKIP LOCKED lets every replica sweep at once without waiting on each other
-- or on a Settle that holds the row; such a row is picked up next pass.
CREATE FUNCTION "ledger_sweep"(p_now timestamptz, p_limit int) RETURNS int
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
