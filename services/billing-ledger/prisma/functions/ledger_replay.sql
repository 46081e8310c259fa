-- The stored answer to a key (a retry), an idempotency_conflict error when the
-- key came with another request, or NULL for a new key.
CREATE OR REPLACE FUNCTION "ledger_replay"(p_ws text, p_key text, p_hash text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  prior "idempotency_records";
BEGIN
  SELECT * INTO prior FROM "idempotency_records" WHERE "workspace_id" = p_ws AND "key" = p_key;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF prior."request_hash" <> p_hash THEN
    RETURN jsonb_build_object('error', 'idempotency_conflict', 'operation', prior."operation");
  END IF;
  RETURN prior."response";
END
$$;
