-- A concurrent-browser slot. Acquire and Renew take the account row lock, so
-- concurrent acquires count leases one at a time and never pass the plan's limit.
CREATE OR REPLACE FUNCTION "ledger_acquire_slot"(
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
