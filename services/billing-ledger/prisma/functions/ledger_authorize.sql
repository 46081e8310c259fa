-- The Authorize RPC: a hold on p_amount, or quota_exceeded when the allowance
-- and grants, minus what holds reserve, do not cover it.
CREATE OR REPLACE FUNCTION "ledger_authorize"(
  p_ws text, p_key text, p_hash text, p_capability text, p_reference text, p_amount bigint, p_ttl_seconds int,
  p_now timestamptz, p_period_start timestamptz, p_hold_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  acc "accounts";
  resp jsonb;
  available bigint;
  expires timestamptz := p_now + make_interval(secs => p_ttl_seconds);
BEGIN
  acc := "ledger_lock_account"(p_ws, p_period_start);
  IF acc."workspace_id" IS NULL THEN RETURN jsonb_build_object('error', 'account_not_found'); END IF;
  resp := "ledger_replay"(p_ws, p_key, p_hash);
  IF resp IS NOT NULL THEN RETURN resp; END IF;
  available := acc."allowance_mc" - acc."allowance_spent_mc" - "ledger_held"(p_ws, p_now);
  -- Grants are summed only when the allowance alone does not cover it: most calls skip a query.
  IF available < p_amount THEN available := available + "ledger_grants_left"(p_ws, p_now); END IF;
  IF available < p_amount THEN
    RETURN jsonb_build_object('error', 'quota_exceeded', 'needed', p_amount, 'available', greatest(available, 0));
  END IF;
  INSERT INTO "holds" ("id", "workspace_id", "idempotency_key", "capability", "reference", "amount_mc",
                       "status", "expires_at", "created_at")
  VALUES (p_hold_id, p_ws, p_key, p_capability, p_reference, p_amount, 'active', expires, p_now);
  resp := jsonb_build_object('hold_id', p_hold_id, 'millicredits', p_amount,
                             'expires_at', (extract(epoch FROM expires) * 1000)::bigint);
  INSERT INTO "idempotency_records" VALUES (p_ws, p_key, 'authorize', p_hash, resp, p_now);
  RETURN resp;
END
$$;
