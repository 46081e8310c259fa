-- Resolves a hold once; later calls answer the same figures and change nothing.
CREATE OR REPLACE FUNCTION "ledger_void"(p_hold_id uuid, p_now timestamptz) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  h "holds";
BEGIN
  SELECT * INTO h FROM "holds" WHERE "id" = p_hold_id FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', 'hold_not_found'); END IF;
  IF h."status" = 'active' AND h."expires_at" > p_now THEN
    UPDATE "holds" SET "status" = 'voided', "released_mc" = "amount_mc" - "settled_mc", "resolved_at" = p_now
     WHERE "id" = p_hold_id RETURNING * INTO h;
  ELSIF h."status" = 'active' THEN
    UPDATE "holds" SET "status" = 'expired', "resolved_at" = "expires_at" WHERE "id" = p_hold_id RETURNING * INTO h;
  END IF;
  RETURN jsonb_build_object('released', coalesce(h."released_mc", 0), 'settled', h."settled_mc", 'status', h."status");
END
$$;
