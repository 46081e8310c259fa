-- Work already done: charged up to what is available (allowance and grants
-- minus what holds reserve); the rest is recorded as uncollected, never owed.
CREATE OR REPLACE FUNCTION "ledger_charge"(
  p_ws text, p_key text, p_hash text, p_capability text, p_reference text, p_meters jsonb, p_priced bigint,
  p_now timestamptz, p_period_start timestamptz, p_period_end timestamptz, p_usage_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  acc "accounts";
  resp jsonb;
  available bigint;
  collect bigint;
BEGIN
  acc := "ledger_lock_account"(p_ws, p_period_start);
  IF acc."workspace_id" IS NULL THEN RETURN jsonb_build_object('error', 'account_not_found'); END IF;
  resp := "ledger_replay"(p_ws, p_key, p_hash);
  IF resp IS NOT NULL THEN RETURN resp; END IF;
  available := acc."allowance_mc" - acc."allowance_spent_mc" - "ledger_held"(p_ws, p_now);
  IF available < p_priced THEN available := available + "ledger_grants_left"(p_ws, p_now); END IF;
  collect := least(p_priced, greatest(0, available));
  PERFORM "ledger_record_usage"(acc, p_usage_id, NULL, p_key, p_capability, p_reference,
                                p_meters, p_priced, collect, p_now, p_period_end);
  resp := jsonb_build_object('usage', jsonb_build_object('meters', p_meters, 'millicredits', collect));
  INSERT INTO "idempotency_records" VALUES (p_ws, p_key, 'charge', p_hash, resp, p_now);
  RETURN resp;
END
$$;
