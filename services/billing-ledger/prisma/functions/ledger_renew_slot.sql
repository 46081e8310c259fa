-- Extends a live slot lease, under the account row lock as ledger_acquire_slot.
CREATE OR REPLACE FUNCTION "ledger_renew_slot"(p_lease_id uuid, p_ttl_seconds int, p_now timestamptz) RETURNS jsonb
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
