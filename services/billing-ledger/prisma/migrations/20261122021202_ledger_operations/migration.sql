-- Written by hand: one function per money RPC, on the helpers of the previous
-- migration. Lock order is always account row, then hold row, so two calls
-- never wait on each other in a cycle; Void and the sweep lock only a hold.

-- Opens the account with the p_open_* terms when it does not exist; then
-- applies whichever of p_plan, p_monthly, p_slots is given (not null).
CREATE FUNCTION "ledger_ensure_account"(
  p_ws text, p_open_plan text, p_open_monthly bigint, p_open_slots int,
  p_plan text, p_monthly bigint, p_slots int,
  p_now timestamptz, p_period_start timestamptz
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  acc "accounts";
BEGIN
  INSERT INTO "accounts" ("workspace_id", "plan", "monthly_allowance_mc", "slot_limit",
                          "allowance_period_start", "allowance_mc", "created_at", "updated_at")
  VALUES (p_ws, p_open_plan::"Plan", p_open_monthly, p_open_slots, p_period_start, p_open_monthly, p_now, p_now)
  ON CONFLICT ("workspace_id") DO NOTHING;
  acc := "ledger_lock_account"(p_ws, p_period_start);
  IF acc."plan" <> coalesce(p_plan::"Plan", acc."plan")
     OR acc."monthly_allowance_mc" <> coalesce(p_monthly, acc."monthly_allowance_mc")
     OR acc."slot_limit" <> coalesce(p_slots, acc."slot_limit") THEN
    -- A new allowance applies to the current month at once; what was already
    -- spent from it stays spent (so it never drops below that).
    UPDATE "accounts"
       SET "plan" = coalesce(p_plan::"Plan", "plan"),
           "monthly_allowance_mc" = coalesce(p_monthly, "monthly_allowance_mc"),
           "slot_limit" = coalesce(p_slots, "slot_limit"),
           "allowance_mc" = CASE WHEN p_monthly IS NULL OR p_monthly = "monthly_allowance_mc" THEN "allowance_mc"
                                 ELSE greatest(p_monthly, "allowance_spent_mc") END,
           "updated_at" = p_now
     WHERE "workspace_id" = p_ws
    RETURNING * INTO acc;
  END IF;
  RETURN jsonb_build_object('plan', acc."plan", 'slots', acc."slot_limit", 'allowance', acc."monthly_allowance_mc");
END
$$;

CREATE FUNCTION "ledger_grant"(
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

CREATE FUNCTION "ledger_authorize"(
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

-- Settle never goes beyond the hold: a charge larger than what is left is
-- refused whole (cap_exceeded), as is any charge on a resolved or expired hold.
CREATE FUNCTION "ledger_settle"(
  p_hold_id uuid, p_key text, p_hash text, p_meters jsonb, p_priced bigint,
  p_now timestamptz, p_period_start timestamptz, p_period_end timestamptz, p_usage_id uuid
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ws text;
  acc "accounts";
  h "holds";
  resp jsonb;
  collect bigint;
  settled bigint;
BEGIN
  SELECT "workspace_id" INTO ws FROM "holds" WHERE "id" = p_hold_id;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', 'hold_not_found'); END IF;
  acc := "ledger_lock_account"(ws, p_period_start);
  resp := "ledger_replay"(ws, p_key, p_hash);
  IF resp IS NOT NULL THEN RETURN resp; END IF;
  SELECT * INTO h FROM "holds" WHERE "id" = p_hold_id FOR UPDATE;
  IF h."status" <> 'active' OR h."expires_at" <= p_now THEN
    RETURN jsonb_build_object('error', 'hold_resolved', 'status',
                              CASE WHEN h."status" = 'active' THEN 'expired' ELSE h."status" END,
                              'cap', h."settled_mc", 'spent', h."settled_mc", 'needed', p_priced);
  END IF;
  IF h."settled_mc" + p_priced > h."amount_mc" THEN
    RETURN jsonb_build_object('error', 'cap_exceeded', 'cap', h."amount_mc", 'spent', h."settled_mc", 'needed', p_priced);
  END IF;
  -- The hold reserved this much, so the sources cover it unless one lapsed or
  -- the plan shrank meanwhile; then the rest is recorded as uncollected.
  collect := p_priced;
  IF collect > acc."allowance_mc" - acc."allowance_spent_mc" THEN
    collect := least(collect, acc."allowance_mc" - acc."allowance_spent_mc" + "ledger_grants_left"(ws, p_now));
  END IF;
  PERFORM "ledger_record_usage"(acc, p_usage_id, p_hold_id, p_key, h."capability", h."reference",
                                p_meters, p_priced, collect, p_now, p_period_end);
  settled := h."settled_mc" + p_priced;
  UPDATE "holds"
     SET "settled_mc" = settled,
         "status" = (CASE WHEN settled = "amount_mc" THEN 'settled' ELSE 'active' END)::"HoldStatus",
         "resolved_at" = CASE WHEN settled = "amount_mc" THEN p_now END
   WHERE "id" = p_hold_id;
  resp := jsonb_build_object('usage', jsonb_build_object('meters', p_meters, 'millicredits', collect),
                             'hold_remaining', h."amount_mc" - settled);
  INSERT INTO "idempotency_records" VALUES (ws, p_key, 'settle', p_hash, resp, p_now);
  RETURN resp;
END
$$;

-- Resolves a hold once; later calls answer the same figures and change nothing.
CREATE FUNCTION "ledger_void"(p_hold_id uuid, p_now timestamptz) RETURNS jsonb
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

-- Work already done: charged up to what is available (allowance and grants
-- minus what holds reserve); the rest is recorded as uncollected, never owed.
CREATE FUNCTION "ledger_charge"(
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
