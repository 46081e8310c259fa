-- The Grant RPC: credits lapsing at p_lapses_at added to the account, with their entry.
CREATE OR REPLACE FUNCTION "ledger_grant"(
  p_ws text, p_key text, p_hash text, p_kind text, p_amount bigint, p_lapses_at timestamptz, p_note text,
  p_now timestamptz, p_period_start timestamptz, p_grant_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  acc "accounts";
  resp jsonb;
BEGIN
  acc := "ledger_lock_account"(p_ws, p_period_start);
  IF acc."workspace_id" IS NULL THEN RETURN jsonb_build_object('error', 'account_not_found'); END IF;
  resp := "ledger_replay"(p_ws, p_key, p_hash);
  IF resp IS NOT NULL THEN RETURN resp; END IF;
  -- Only a new grant must lapse in the future: a retry after the lapse still answers its id.
  IF p_lapses_at <= p_now THEN RETURN jsonb_build_object('error', 'grant_lapsed'); END IF;
  INSERT INTO "grants" ("id", "workspace_id", "kind", "amount_mc", "lapses_at", "note", "created_at")
  VALUES (p_grant_id, p_ws, p_kind::"GrantKind", p_amount, p_lapses_at, p_note, p_now);
  INSERT INTO "entries" ("workspace_id", "kind", "amount_mc", "grant_id", "created_at")
  VALUES (p_ws, 'grant', p_amount, p_grant_id, p_now);
  resp := jsonb_build_object('grant_id', p_grant_id);
  INSERT INTO "idempotency_records" VALUES (p_ws, p_key, 'grant', p_hash, resp, p_now);
  RETURN resp;
END
$$;
